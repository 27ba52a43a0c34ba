"""The worker: per-case order, bounded concurrency, coalescing, failures, restart and shutdown."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import timedelta

import pytest

from bot.inbox.retry import RetryLater
from bot.worker.worker import ACKS_FIRST_S, Arrivals, Worker
from domain.queue import InboxItem, InboxStatus
from domain.retry import RetryPolicy
from tests.fakes.clock import START, FakeClock
from tests.fakes.inbox import MemoryInbox


def item(key: str, case: str | None = "A", kind: str = "message") -> InboxItem:
    return InboxItem(
        dedup_key=key, team_id="T1", case_key=case, kind=kind, available_at=START, created_at=START
    )


@dataclass
class Recorder:
    """Handles items: remembers the order, optionally blocks, fails on demand."""

    gate: asyncio.Event | None = None
    fail: set[str] = field(default_factory=set)
    handled: list[tuple[str, list[str]]] = field(default_factory=list)
    running: int = 0
    most_at_once: int = 0
    reported: list[tuple[str, str]] = field(default_factory=list)

    async def handle(self, current: InboxItem, followers: Sequence[InboxItem]) -> None:
        self.running += 1
        self.most_at_once = max(self.most_at_once, self.running)
        try:
            if self.gate is not None:
                await self.gate.wait()
            if current.dedup_key in self.fail:
                raise RuntimeError("secret upload content")
            self.handled.append((current.dedup_key, [f.dedup_key for f in followers]))
        finally:
            self.running -= 1

    async def report(self, current: InboxItem, error: BaseException, reference: str) -> None:
        self.reported.append((current.dedup_key, reference))


async def record(inbox: MemoryInbox, worker: Worker, *items: InboxItem) -> None:
    for one in items:
        assert await inbox.enqueue(one)
        worker.notify(one)


def make(
    inbox: MemoryInbox,
    recorder: Recorder,
    concurrency: int = 4,
    arrivals: Arrivals | None = None,
    owner: str = "host-1:/data",
    clock: FakeClock | None = None,
) -> Worker:
    return Worker(
        inbox=inbox,
        handle=recorder.handle,
        report=recorder.report,
        clock=clock or FakeClock(),
        owner=owner,
        concurrency=concurrency,
        poll_interval_s=0.05,
        heartbeat_s=0.0,  # every round, so the tests need not wait for it
        arrivals=arrivals,
    )


async def test_items_of_one_case_run_in_order_and_later_messages_ride_along() -> None:
    inbox, recorder = MemoryInbox(), Recorder()
    worker = make(inbox, recorder)
    await record(inbox, worker, item("m1"), item("m2"), item("m3"))

    await worker.start()
    await worker.wait_idle(5)
    await worker.stop()

    assert recorder.handled == [("m1", ["m2", "m3"])]
    assert set(inbox.statuses().values()) == {InboxStatus.DONE}


async def test_a_click_between_messages_stops_the_coalescing_so_order_is_kept() -> None:
    inbox, recorder = MemoryInbox(), Recorder()
    worker = make(inbox, recorder)
    await record(inbox, worker, item("m1"), item("c1", kind="click"), item("m2"))

    await worker.start()
    await worker.wait_idle(5)
    await worker.stop()

    assert recorder.handled == [("m1", []), ("c1", []), ("m2", [])]


async def test_messages_arriving_during_a_turn_make_the_next_turn_together() -> None:
    gate = asyncio.Event()
    inbox, recorder = MemoryInbox(), Recorder(gate=gate)
    worker = make(inbox, recorder)
    await worker.start()
    await record(inbox, worker, item("m1"))
    await asyncio.sleep(0.1)
    await record(inbox, worker, item("m2"), item("m3"))
    gate.set()

    await worker.wait_idle(5)
    await worker.stop()

    assert recorder.handled == [("m1", []), ("m2", ["m3"])]


async def test_cases_run_side_by_side_up_to_the_concurrency_limit() -> None:
    gate = asyncio.Event()
    inbox, recorder = MemoryInbox(), Recorder(gate=gate)
    worker = make(inbox, recorder, concurrency=3)
    await record(inbox, worker, *(item(f"m{n}", case=f"K{n}") for n in range(8)))

    await worker.start()
    await asyncio.sleep(0.2)
    running_now = recorder.running
    gate.set()
    await worker.wait_idle(5)
    await worker.stop()

    assert running_now == 3
    assert recorder.most_at_once == 3
    assert len(recorder.handled) == 8


async def test_a_failure_is_reported_with_a_reference_and_never_its_text() -> None:
    inbox, recorder = MemoryInbox(), Recorder(fail={"m1"})
    worker = make(inbox, recorder)
    await record(inbox, worker, item("m1"), item("m2"))

    await worker.start()
    await worker.wait_idle(5)
    await worker.stop()

    ((failed, reference),) = recorder.reported
    assert failed == "m1"
    assert inbox.statuses() == {"m1": InboxStatus.FAILED, "m2": InboxStatus.DONE}
    assert inbox.items[0].last_error == f"RuntimeError (ref {reference})"
    assert recorder.handled == [("m2", [])], "the follower of a failed turn runs on its own"


@dataclass
class Flaky:
    """Alert-like work that Slack being down cuts short: asks to be taken again, with progress."""

    outages: int
    tries: list[dict[str, object]] = field(default_factory=list)
    reported: list[str] = field(default_factory=list)

    async def handle(self, current: InboxItem, followers: Sequence[InboxItem]) -> None:
        self.tries.append(dict(current.payload))
        if len(self.tries) <= self.outages:
            try:
                raise ConnectionResetError("slack went away")
            except ConnectionResetError as error:
                raise RetryLater({"counted": True}) from error

    async def report(self, current: InboxItem, error: BaseException, reference: str) -> None:
        self.reported.append(type(error).__name__)


async def run_flaky(flaky: Flaky, clock: FakeClock) -> MemoryInbox:
    inbox = MemoryInbox()
    policy = RetryPolicy(attempts=3, first_delay_s=10.0)
    worker = Worker(
        inbox=inbox,
        handle=flaky.handle,
        report=flaky.report,
        clock=clock,
        owner="host-1:/data",
        poll_interval_s=0.05,
        heartbeat_s=0.0,
        retry=policy,
    )
    await record(inbox, worker, item("alert-1", kind="alert"))
    await worker.start()
    for _ in range(flaky.outages + 1):
        await worker.wait_idle(5)
        clock.advance(seconds=60)
        worker.notify(inbox.items[0])
        await asyncio.sleep(0.2)
    await worker.wait_idle(5)
    await worker.stop()
    return inbox


async def test_work_cut_short_is_queued_again_at_the_policys_time_with_its_progress() -> None:
    clock = FakeClock()
    flaky = Flaky(outages=1)
    inbox = MemoryInbox()
    worker = Worker(
        inbox=inbox,
        handle=flaky.handle,
        report=flaky.report,
        clock=clock,
        owner="host-1:/data",
        poll_interval_s=0.05,
        heartbeat_s=0.0,
        retry=RetryPolicy(attempts=3, first_delay_s=10.0),
    )
    await record(inbox, worker, item("alert-1", kind="alert"))

    await worker.start()
    await worker.wait_idle(5)
    (queued,) = inbox.items
    assert queued.status is InboxStatus.PENDING
    assert queued.available_at == START + timedelta(seconds=10)
    assert queued.payload == {"counted": True}
    assert queued.last_error is not None
    assert queued.last_error.startswith("ConnectionResetError (tried 1, again at ")
    clock.advance(seconds=11)
    worker.notify(queued)
    await asyncio.sleep(0.3)
    await worker.wait_idle(5)
    await worker.stop()

    assert inbox.statuses() == {"alert-1": InboxStatus.DONE}
    assert flaky.tries == [{}, {"counted": True}]
    assert flaky.reported == []


async def test_work_that_keeps_being_cut_short_fails_once_its_tries_are_used_up() -> None:
    flaky = Flaky(outages=5)

    inbox = await run_flaky(flaky, FakeClock())

    assert len(flaky.tries) == 3
    assert inbox.statuses() == {"alert-1": InboxStatus.FAILED}
    assert flaky.reported == ["ConnectionResetError"]


async def test_work_left_by_a_crash_is_resumed_on_start() -> None:
    gate = asyncio.Event()
    inbox, recorder = MemoryInbox(), Recorder(gate=gate)
    crashed = make(inbox, recorder)
    await record(inbox, crashed, item("m1"))
    await crashed.start()
    await asyncio.sleep(0.1)
    await crashed.abort()
    assert inbox.statuses() == {"m1": InboxStatus.PROCESSING}

    gate.set()
    restarted = make(inbox, recorder)
    resumed = await restarted.start()
    await restarted.wait_idle(5)
    await restarted.stop()

    assert resumed == 1
    assert recorder.handled == [("m1", [])]
    assert inbox.statuses() == {"m1": InboxStatus.DONE}


@pytest.mark.parametrize(("grace", "finished"), [(2.0, True), (0.05, False)])
async def test_stopping_drains_running_items_within_the_grace_period(
    grace: float, finished: bool
) -> None:
    inbox, recorder = MemoryInbox(), Recorder(gate=asyncio.Event())
    worker = make(inbox, recorder)
    await record(inbox, worker, item("m1"))
    await worker.start()
    await asyncio.sleep(0.1)
    assert recorder.gate is not None
    asyncio.get_running_loop().call_later(0.3, recorder.gate.set)

    await worker.stop(grace_s=grace)

    status = inbox.statuses()["m1"]
    assert status is (InboxStatus.DONE if finished else InboxStatus.PENDING), (
        "what was cut short goes back to the queue for any instance to take"
    )


async def test_starting_a_replica_leaves_the_other_ones_running_work_alone() -> None:
    gate = asyncio.Event()
    inbox, first, second, clock = MemoryInbox(), Recorder(gate=gate), Recorder(), FakeClock()
    running = make(inbox, first, owner="host-1:/data", clock=clock)
    await record(inbox, running, item("m1"))
    await running.start()
    await asyncio.sleep(0.1)

    clock.advance(minutes=30)  # a long turn: its holder's heartbeat keeps it its own
    await asyncio.sleep(0.1)
    replica = make(inbox, second, owner="host-2:/data", clock=clock)
    resumed = await replica.start()
    await asyncio.sleep(0.2)

    assert resumed == 0
    assert [i.dedup_key for i in await replica.held_elsewhere()] == ["m1"]
    assert second.handled == []
    gate.set()
    await running.wait_idle(5)
    await asyncio.gather(running.stop(), replica.stop())
    assert first.handled == [("m1", [])]
    assert inbox.statuses() == {"m1": InboxStatus.DONE}


async def test_a_silent_replicas_work_is_resumed_by_another() -> None:
    inbox, recorder, clock = MemoryInbox(), Recorder(gate=asyncio.Event()), FakeClock()
    crashed = make(inbox, recorder, owner="host-1:/data", clock=clock)
    await record(inbox, crashed, item("m1"))
    await crashed.start()
    await asyncio.sleep(0.1)
    await crashed.abort()

    done = Recorder()
    survivor = make(inbox, done, owner="host-2:/data", clock=clock)
    assert await survivor.start() == 0, "silent for a moment only: it may still be working"
    assert inbox.statuses() == {"m1": InboxStatus.PROCESSING}
    clock.advance(minutes=3)
    await survivor.wait_idle(5)
    await survivor.stop()

    assert done.handled == [("m1", [])]
    assert inbox.statuses() == {"m1": InboxStatus.DONE}


async def test_nothing_new_starts_while_slack_waits_for_an_acknowledgement() -> None:
    inbox, recorder, arrivals = MemoryInbox(), Recorder(), Arrivals()
    worker = make(inbox, recorder, arrivals=arrivals)
    await worker.start()

    with arrivals.receiving():  # a burst: the first event is recorded, others still arriving
        await record(inbox, worker, item("m1"))
        await asyncio.sleep(0.05)
        assert recorder.handled == []
    await worker.wait_idle(5)
    await worker.stop()

    assert recorder.handled == [("m1", [])]


async def test_a_flood_of_requests_holds_new_work_back_only_briefly() -> None:
    inbox, recorder, arrivals = MemoryInbox(), Recorder(), Arrivals()
    worker = make(inbox, recorder, arrivals=arrivals)
    await worker.start()

    with arrivals.receiving():  # never ends while we wait
        await record(inbox, worker, item("m1"))
        await asyncio.sleep(ACKS_FIRST_S + 0.3)
        assert recorder.handled == [("m1", [])]
    await worker.stop()


async def test_finished_items_are_deleted_a_week_on_checked_once_an_hour() -> None:
    inbox, clock = MemoryInbox(), FakeClock()
    worker = make(inbox, Recorder(), clock=clock)

    await worker.start()
    await worker.wait_idle(5)
    clock.advance(minutes=59)
    await worker.wait_idle(5)
    clock.advance(minutes=2)
    await worker.wait_idle(5)
    await worker.stop()

    assert inbox.purges == [START - timedelta(days=7), START + timedelta(minutes=61, days=-7)]
