"""Replicas on one inbox: a live holder keeps its work; a silent one's is resumed in time."""

from __future__ import annotations

import asyncio
import time
from datetime import timedelta

from bot.adapters.stores import SystemClock
from bot.worker.worker import Worker
from tests.fakes.inbox import MemoryInbox
from tests.unit.bot.worker.test_worker import Recorder, item, record

STALE_AFTER = timedelta(seconds=0.8)
LONG_POLL_S = 5.0
"""Far longer than the bounds below: they must not depend on the claiming poll."""


def replica(
    inbox: MemoryInbox, recorder: Recorder, owner: str, heartbeat_s: float | None = None
) -> Worker:
    """A worker as the bot builds one: the heartbeat derived from ``stale_after``."""
    return Worker(
        inbox=inbox,
        handle=recorder.handle,
        report=recorder.report,
        clock=SystemClock(),
        owner=owner,
        poll_interval_s=LONG_POLL_S,
        stale_after=STALE_AFTER,
        heartbeat_s=heartbeat_s,
    )


async def test_a_live_replica_keeps_a_turn_longer_than_stale_after_by_its_heartbeat() -> None:
    inbox, holder, other = MemoryInbox(), Recorder(gate=asyncio.Event()), Recorder()
    running = replica(inbox, holder, "host-1:/a")
    await record(inbox, running, item("m1"))
    await running.start()
    await asyncio.sleep(0.1)
    watching = replica(inbox, other, "host-2:/b", heartbeat_s=0.05)  # looks for silent ones often
    await watching.start()

    await asyncio.sleep(3 * STALE_AFTER.total_seconds())  # a long model call

    assert other.handled == [], "another replica took work its live holder was still doing"
    assert holder.gate is not None
    holder.gate.set()
    await running.wait_idle(5)
    await asyncio.gather(running.stop(), watching.stop())
    assert holder.handled == [("m1", [])]


async def test_a_silent_replicas_turn_is_resumed_within_stale_after_and_one_heartbeat() -> None:
    inbox, crashed_recorder, survivor_recorder = (
        MemoryInbox(),
        Recorder(gate=asyncio.Event()),
        Recorder(),
    )
    crashed = replica(inbox, crashed_recorder, "host-1:/a")
    survivor = replica(inbox, survivor_recorder, "host-2:/b")
    await record(inbox, crashed, item("m1"))
    await crashed.start()
    await asyncio.sleep(0.1)
    await survivor.start()

    await crashed.abort()
    died = time.monotonic()
    async with asyncio.timeout(LONG_POLL_S):
        while not survivor_recorder.handled:  # noqa: ASYNC110 - the recorder offers no event
            await asyncio.sleep(0.01)
    taken_s = time.monotonic() - died
    await survivor.stop()

    bound_s = (STALE_AFTER + STALE_AFTER / 8).total_seconds()
    assert taken_s <= bound_s + 0.5, f"resumed {taken_s:.2f} s after the crash"
    assert survivor_recorder.handled == [("m1", [])]
