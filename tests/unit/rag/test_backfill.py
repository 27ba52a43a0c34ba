"""The vector backfill: one job at a time, pending files named, a failure or a stop survived."""

from __future__ import annotations

import asyncio

from rag.backfill import VectorBackfill, VectorJob
from rag.store.tables import TableName


def job(source: str, work: object, *, case: str = "C1") -> VectorJob:
    return VectorJob(TableName.EVIDENCE, "T1", "case", case, source, f"i-{source}", work)  # type: ignore[arg-type]


async def test_jobs_run_one_at_a_time_in_order_and_their_files_are_pending_until_done() -> None:
    backfill = VectorBackfill()
    running: list[str] = []
    overlapped = False
    release = asyncio.Event()

    async def work(current: VectorJob) -> None:
        nonlocal overlapped
        overlapped = overlapped or bool(running)
        running.append(current.source)
        await release.wait()
        running.remove(current.source)

    backfill.submit(job("a.log", work))
    backfill.submit(job("b.log", work))
    backfill.submit(job("c.log", work, case="C2"))
    await asyncio.sleep(0)
    pending = backfill.pending(TableName.EVIDENCE, "T1", "case", "C1")
    release.set()
    await backfill.settled()

    assert pending == ["a.log", "b.log"]
    assert not overlapped
    assert backfill.pending(TableName.EVIDENCE, "T1", "case", "C1") == []


async def test_a_failed_job_does_not_stop_the_next() -> None:
    backfill = VectorBackfill()
    done: list[str] = []

    async def fails(_job: VectorJob) -> None:
        raise RuntimeError("model crashed")

    async def works(current: VectorJob) -> None:
        done.append(current.source)

    backfill.submit(job("a.log", fails))
    backfill.submit(job("b.log", works))
    await backfill.settled()

    assert done == ["b.log"]


async def test_a_stopped_job_stays_queued_and_runs_again_when_waited_for() -> None:
    backfill = VectorBackfill()
    started: list[str] = []
    blocked = asyncio.Event()

    async def work(current: VectorJob) -> None:
        started.append(current.source)
        if len(started) == 1:
            blocked.set()
            await asyncio.Event().wait()  # never: stopped while computing

    backfill.submit(job("a.log", work))
    await blocked.wait()
    await backfill.aclose()
    pending = backfill.pending(TableName.EVIDENCE, "T1", "case", "C1")
    await backfill.settled()

    assert pending == ["a.log"]
    assert started == ["a.log", "a.log"]


async def test_forgetting_a_scope_skips_its_queued_jobs_and_waits_for_a_write_under_way() -> None:
    backfill = VectorBackfill()
    events: list[str] = []
    writing = asyncio.Event()
    finish = asyncio.Event()

    async def writes(current: VectorJob) -> None:
        assert current.may_write()
        writing.set()
        await finish.wait()
        events.append(f"wrote {current.source}")
        current.wrote()

    async def never(current: VectorJob) -> None:
        events.append(f"ran {current.source}")

    backfill.submit(job("a.log", writes))
    backfill.submit(job("b.log", never))
    await writing.wait()
    forgetting = asyncio.create_task(backfill.forget(TableName.EVIDENCE, "T1", "case", "C1"))
    await asyncio.sleep(0.01)
    waited = not forgetting.done()
    finish.set()
    await forgetting
    events.append("forgotten")
    await backfill.settled()

    assert waited
    assert events == ["wrote a.log", "forgotten"]
    assert backfill.pending(TableName.EVIDENCE, "T1", "case", "C1") == []
