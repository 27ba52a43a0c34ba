"""The in-process queue of SQLite writers: one at a time, in order, urgent ones first."""

from __future__ import annotations

import asyncio

import pytest

from storage.database.engine import WriterQueue


async def writer(queue: WriterQueue, name: str, log: list[str], *, urgent: bool = False) -> None:
    async with queue.turn(urgent=urgent):
        log.append(f"{name} in")
        await asyncio.sleep(0.01)
        log.append(f"{name} out")


async def test_writers_take_turns_in_arrival_order() -> None:
    queue, log = WriterQueue(), []

    await asyncio.gather(*(writer(queue, name, log) for name in "abc"))

    assert log == ["a in", "a out", "b in", "b out", "c in", "c out"]


async def test_an_urgent_writer_goes_before_the_ones_already_waiting() -> None:
    queue, log = WriterQueue(), []
    first = asyncio.create_task(writer(queue, "a", log))
    await asyncio.sleep(0)
    waiting = [asyncio.create_task(writer(queue, name, log)) for name in "bc"]
    await asyncio.sleep(0)
    urgent = asyncio.create_task(writer(queue, "inbox", log, urgent=True))

    await asyncio.gather(first, *waiting, urgent)

    assert [entry for entry in log if entry.endswith("in")] == ["a in", "inbox in", "b in", "c in"]


async def test_a_cancelled_waiter_does_not_keep_the_turn_from_the_next_one() -> None:
    queue, log = WriterQueue(), []
    first = asyncio.create_task(writer(queue, "a", log))
    await asyncio.sleep(0)
    cancelled = asyncio.create_task(writer(queue, "b", log))
    last = asyncio.create_task(writer(queue, "c", log))
    await asyncio.sleep(0)
    cancelled.cancel()

    await asyncio.gather(first, last)

    with pytest.raises(asyncio.CancelledError):
        await cancelled
    assert log == ["a in", "a out", "c in", "c out"]


async def test_a_failing_writer_hands_the_turn_on() -> None:
    queue, log = WriterQueue(), []

    async def failing() -> None:
        async with queue.turn():
            raise RuntimeError("constraint failed")

    results = await asyncio.gather(failing(), writer(queue, "next", log), return_exceptions=True)

    assert isinstance(results[0], RuntimeError)
    assert log == ["next in", "next out"]
