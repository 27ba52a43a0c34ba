"""Vectors that follow the text: one file at a time in the background, finished after a restart.

A big case file is answered as soon as its text rows are written (full-text search finds it);
its vectors are computed here afterwards, off the event loop (the model runs on worker threads),
one file at a time so uploads do not fight over the model. The rows themselves are the durable
record: until its copies with vectors are written, a file's rows are marked pending, so a process
stopped meanwhile leaves rows the start-up sweep finds and finishes
(`IngestionPipeline.sweep_job`, `rag.resume`).
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from rag.store.tables import TableName

logger = logging.getLogger(__name__)


@dataclass(eq=False)
class VectorJob:
    """The vectors one ingest still owes its text-only rows, and the work that computes them."""

    table: TableName
    team_id: str
    kb: str
    scope_id: str
    source: str
    """The file's name as people know it ("" for the start-up sweep, which is no file)."""
    ingest_id: str
    work: Callable[[VectorJob], Awaitable[None]]
    dropped: bool = False
    """Its rows were removed (the case closed): nothing may be written for it any more."""
    _writing: asyncio.Event | None = field(default=None, repr=False)
    """Set once the vectors being written now are: removing its rows waits for that."""

    def owned_by(self, table: TableName, team_id: str, kb: str, scope_id: str) -> bool:
        """Whether the job's rows belong to this scope."""
        return (self.table, self.team_id, self.kb, self.scope_id) == (table, team_id, kb, scope_id)

    def may_write(self) -> bool:
        """Claim the write, unless the rows were removed meanwhile (checked and set at once)."""
        if self.dropped:
            return False
        self._writing = asyncio.Event()
        return True

    def wrote(self) -> None:
        """The write claimed by `may_write` is over, done or not."""
        writing, self._writing = self._writing, None
        if writing is not None:
            writing.set()

    async def written(self) -> None:
        """Return once no write is under way."""
        if self._writing is not None:
            await self._writing.wait()


class VectorBackfill:
    """Runs vector jobs one at a time on a background task of the running event loop."""

    def __init__(self) -> None:
        self._jobs: deque[VectorJob] = deque()
        self._task: asyncio.Task[None] | None = None

    def submit(self, job: VectorJob) -> None:
        """Queue ``job`` and make sure the work is running."""
        self._jobs.append(job)
        self._wake()

    def pending(self, table: TableName, team_id: str, kb: str, scope_id: str) -> list[str]:
        """Names of this scope's files whose vectors are still owed, oldest first."""
        names = (
            job.source
            for job in self._jobs
            if job.source and not job.dropped and job.owned_by(table, team_id, kb, scope_id)
        )
        return list(dict.fromkeys(names))

    def ingests(self) -> set[str]:
        """Ingest ids queued or under way (the sweep leaves them to their job)."""
        return {job.ingest_id for job in self._jobs if job.ingest_id}

    async def forget(self, table: TableName, team_id: str, kb: str, scope_id: str) -> None:
        """No vectors will be written for this scope's queued files; a write under way ends first.

        Called before the scope's rows are removed, so no job writes its rows back afterwards.
        """
        owned = [job for job in self._jobs if job.owned_by(table, team_id, kb, scope_id)]
        for job in owned:
            job.dropped = True
        for job in owned:
            await job.written()

    async def settled(self) -> None:
        """Return once every queued job has finished (for tests, benchmarks and shutdown)."""
        while self._jobs:
            await asyncio.wait({self._wake()})

    async def aclose(self) -> None:
        """Stop the work under way; its rows keep their full text and are finished at next start."""
        task, self._task = self._task, None
        if task is None or task.done() or task.get_loop() is not asyncio.get_running_loop():
            return
        task.cancel()
        await asyncio.wait({task})

    def _wake(self) -> asyncio.Task[None]:
        """The running worker task, started on this event loop if there is none."""
        loop = asyncio.get_running_loop()
        task = self._task
        if task is None or task.done() or task.get_loop() is not loop:
            task = self._task = loop.create_task(self._drain(), name="fm-vectors")
        return task

    async def _drain(self) -> None:
        while self._jobs:
            job = self._jobs[0]
            try:
                if not job.dropped:
                    await job.work(job)
            except Exception:  # its rows keep their full text; the next start tries again
                logger.warning(
                    "vectors not written",
                    extra={"ingest_id": job.ingest_id, "source": job.source},
                    exc_info=True,
                )
            # Cancelled (the process stops): the job stays queued, its rows still text-only.
            finally:
                job.wrote()
            if self._jobs and self._jobs[0] is job:
                self._jobs.popleft()
