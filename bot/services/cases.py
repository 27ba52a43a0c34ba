"""Cases by thread, saved with the version check; which threads are cases (for the listeners)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import TypeVar

from bot.inbox.work import ThreadRef
from bot.services.outcomes import FinishedCases
from domain.case import Case
from domain.errors import NotFoundError, VersionConflictError
from domain.ports import CaseRepository
from domain.records import AuditEntry

SAVE_ATTEMPTS = 3
T = TypeVar("T")


class CaseStore:
    """The case repository as the services use it; a case saved finished is settled here too."""

    def __init__(self, cases: CaseRepository, *, finished: FinishedCases | None = None) -> None:
        self.repository = cases
        self.finished = finished
        """What follows a case saved finished (None: nothing)."""
        self._known_threads: set[str] = set()

    async def by_thread(self, thread: ThreadRef) -> Case | None:
        """The case of a thread, if it is one."""
        case = await self.repository.get_by_thread(
            thread.team_id, thread.channel_id, thread.thread_ts
        )
        if case is not None:
            self._known_threads.add(thread.key)
        return case

    async def get_by_thread_or_fail(self, thread: ThreadRef) -> Case:
        """The case of a thread that must be one (NotFoundError)."""
        case = await self.by_thread(thread)
        if case is None:
            raise NotFoundError(f"no case in thread {thread.key}")
        return case

    async def get(self, case_id: str) -> Case:
        """A case by id (NotFoundError)."""
        return await self.repository.get(case_id)

    async def clicked(self, case_id: str, team_id: str) -> Case:
        """The case a button names, only from the clicker's own workspace (NotFoundError)."""
        case = await self.repository.get(case_id)
        if case.team_id != team_id:
            raise NotFoundError("case of another workspace")
        return case

    async def by_short_id(self, team_id: str, short_id: str) -> Case | None:
        """A case by the id people type, in their workspace."""
        return await self.repository.get_by_short_id(team_id, short_id)

    async def add(self, case: Case) -> Case:
        """Store a new case (DuplicateCaseError if the thread is taken)."""
        stored = await self.repository.add(case)
        self._known_threads.add(f"{case.team_id}:{case.channel_id}:{case.thread_ts}")
        return stored

    async def save(self, case: Case) -> Case:
        """Save a case changed elsewhere, once, with the version check (VersionConflictError);
        a case saved finished is then settled. The services change cases with `update`."""
        saved = await self.repository.save(case)
        await self._settle_if_finished(saved)
        return saved

    async def update(
        self,
        case: Case,
        step: Callable[[Case], Awaitable[tuple[Case, T]]],
        *,
        audit: Callable[[Case], Sequence[AuditEntry]] | None = None,
    ) -> tuple[Case, T]:
        """``step`` the case and save what it returns; on a conflict, step the fresh case again.

        The one version-conflict loop: a turn steps by applying the model's reply (asked once),
        a click or a command by a small change. Nothing is shown before the save succeeds. A
        case the save leaves finished is then settled: graded, and its uploaded evidence deleted.

        ``audit`` writes down the change (a click's answer) from the stepped case; its entries
        are saved in the case's transaction, so the change and its record commit together.
        """
        for attempt in range(1, SAVE_ATTEMPTS + 1):
            changed, outcome = await step(case)
            entries = audit(changed) if audit is not None else ()
            try:
                saved = await self.repository.save(changed, audit=entries)
            except VersionConflictError:
                if attempt == SAVE_ATTEMPTS:
                    raise
                case = await self.repository.get(case.case_id)
                continue
            await self._settle_if_finished(saved)
            return saved, outcome
        raise AssertionError("unreachable")

    async def change(self, case: Case, apply: Callable[[Case], None]) -> Case:
        """Apply a small change and save it; on a conflict reload and apply it again."""

        async def step(current: Case) -> tuple[Case, None]:
            apply(current)
            return current, None

        saved, _ = await self.update(case, step)
        return saved

    async def _settle_if_finished(self, saved: Case) -> None:
        """A case just saved resolved or closed: graded once, its uploaded evidence deleted."""
        if saved.is_terminal and self.finished is not None:
            await self.finished.settle(saved)

    def remember_thread(self, thread: ThreadRef) -> None:
        """A case is being opened on this thread (its follow-ups count before it exists)."""
        self._known_threads.add(thread.key)

    async def is_case_thread(self, thread: ThreadRef) -> bool:
        """Whether messages in this thread are turns of a case."""
        if thread.key in self._known_threads:
            return True
        return await self.by_thread(thread) is not None
