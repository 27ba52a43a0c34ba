"""Ports: the small interfaces the core needs from the outside world, in domain types only."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from datetime import datetime
from typing import Protocol

from domain.budget import LLMSpend
from domain.case import Case
from domain.lifecycle.confirmations import PendingConfirmation
from domain.llm import LLMCallRecord
from domain.outcomes import ConclusionFeedback, Outcome
from domain.records import (
    AuditEntry,
    ConversationMessage,
    PostedKind,
    PostedMessage,
    StoredFile,
)
from domain.scoring.model import ScoringStatus, SessionScore


class Clock(Protocol):
    """Source of the current time (injected so rules and prompts are testable)."""

    def now(self) -> datetime:
        """The current time, timezone-aware."""
        ...


class CaseRepository(Protocol):
    """Cases, saved atomically with an optimistic version check."""

    async def add(self, case: Case) -> Case:
        """Store a new case (assigns its short id and version); DuplicateCaseError if taken."""
        ...

    async def get(self, case_id: str) -> Case:
        """The case, or NotFoundError."""
        ...

    async def get_by_thread(self, team_id: str, channel_id: str, thread_ts: str) -> Case | None:
        """The case a Slack thread belongs to."""
        ...

    async def get_by_short_id(self, team_id: str, short_id: str) -> Case | None:
        """The case with this human id in this workspace."""
        ...

    async def save(self, case: Case, *, audit: Sequence[AuditEntry] = ()) -> Case:
        """Save if nobody saved since it was loaded (else VersionConflictError); ``audit``, the
        entries of the change being saved, is written in the same transaction."""
        ...

    async def list_cases(
        self,
        team_id: str,
        *,
        open_only: bool = True,
        user_id: str | None = None,
        channel_id: str | None = None,
        limit: int = 20,
    ) -> list[Case]:
        """Recent cases of a workspace, newest first (``channel_id``: only that channel's)."""
        ...

    async def find_confirmation(
        self, team_id: str, confirmation_id: str
    ) -> tuple[str, PendingConfirmation] | None:
        """The case id and confirmation for a button click."""
        ...


class MessageRepository(Protocol):
    """The conversation of each case."""

    async def add(self, message: ConversationMessage) -> bool:
        """Store a message; False if that ts was already stored for the case."""
        ...

    async def add_many(self, messages: list[ConversationMessage]) -> int:
        """Store several messages at once, skipping stored ts; return how many were new."""
        ...

    async def list_for_case(
        self, case_id: str, *, limit: int | None = None
    ) -> list[ConversationMessage]:
        """Messages oldest first (the newest ``limit`` if given)."""
        ...


class FileRepository(Protocol):
    """Uploaded files' records."""

    async def add(self, record: StoredFile) -> None:
        """Store a new file record."""
        ...

    async def update(self, record: StoredFile) -> None:
        """Replace a file record."""
        ...

    async def get(self, file_id: str) -> StoredFile:
        """The record, or NotFoundError."""
        ...

    async def list_for_case(self, case_id: str) -> list[StoredFile]:
        """A case's files, oldest first."""
        ...


class PostedMessageRepository(Protocol):
    """The one place that remembers the bot's messages of each case (its Slack refs)."""

    async def remember(self, message: PostedMessage) -> None:
        """Keep where a message is (or is to be): one per case, kind and key, the newest wins."""
        ...

    async def find(self, case_id: str, kind: PostedKind, key: str = "") -> PostedMessage | None:
        """The message of that kind and key, if the bot posted (or wrote down) one."""
        ...


class AuditRepository(Protocol):
    """Append-only audit log."""

    async def record(self, entry: AuditEntry) -> None:
        """Append an entry."""
        ...

    async def record_many(self, entries: list[AuditEntry]) -> None:
        """Append several entries at once, in order."""
        ...

    async def list_for_case(self, case_id: str) -> list[AuditEntry]:
        """A case's entries, oldest first."""
        ...

    async def recorded_since(self, team_id: str, action: str, *, since: datetime) -> bool:
        """Whether the workspace has an entry of ``action`` at or after ``since``."""
        ...


class LLMCallRepository(Protocol):
    """Every LLM call's record (model, template and hash, latency, tokens, cost, outcome)."""

    async def record(self, record: LLMCallRecord) -> None:
        """Append one call's record."""
        ...

    async def list_for_case(self, case_id: str) -> list[LLMCallRecord]:
        """A case's calls, oldest first."""
        ...

    async def for_case(self, case_id: str) -> LLMSpend:
        """What a case's calls cost."""
        ...

    async def for_cases(self, case_ids: Sequence[str]) -> dict[str, LLMSpend]:
        """What each case's calls cost (cases without calls left out)."""
        ...

    async def for_team(self, team_id: str, *, since: datetime, until: datetime) -> LLMSpend:
        """What a workspace's calls cost between two moments (calls of no case included)."""
        ...

    async def team_of(self, case_id: str) -> str | None:
        """The workspace of a case."""
        ...


class ScoreRepository(Protocol):
    """Session scores (the judge's gradings)."""

    async def create(self, score: SessionScore) -> SessionScore:
        """Insert a pending scoring; ScoringInProgressError if one is already active."""
        ...

    async def get(self, score_id: str) -> SessionScore:
        """The scoring, or NotFoundError."""
        ...

    async def active_for_case(self, case_id: str) -> SessionScore | None:
        """The pending or in-progress scoring of a case, if any."""
        ...

    async def latest_for_case(self, case_id: str) -> SessionScore | None:
        """The newest scoring of a case, in any status."""
        ...

    async def update(self, score: SessionScore) -> None:
        """Store a scoring's new state."""
        ...

    async def list_recent(
        self, team_id: str, *, below: int | None = None, limit: int = 20
    ) -> list[SessionScore]:
        """Recent completed scorings of a workspace, newest first."""
        ...

    async def fail_orphans(self, *, reason: str, now_us: int, spare: Collection[str] = ()) -> int:
        """Mark scorings left pending/in progress (a crash) as failed, except ``spare``.

        ``spare``: score ids another live instance is judging right now. Returns how many.
        """
        ...

    async def count_by_status(self, case_id: str) -> dict[ScoringStatus, int]:
        """How many scorings of each status a case has."""
        ...


class FeedbackRepository(Protocol):
    """👍/👎 on stated root causes: one rating per person, conclusion and case."""

    async def record(self, feedback: ConclusionFeedback) -> None:
        """Keep this rating, replacing the same person's earlier one of that conclusion."""
        ...

    async def list_for_case(self, case_id: str) -> list[ConclusionFeedback]:
        """Every rating of a case's conclusions, oldest first."""
        ...


class OutcomeRepository(Protocol):
    """The graded root cause of each finished case."""

    async def record(self, outcome: Outcome) -> None:
        """Keep the case's outcome, replacing an earlier grading of the same case."""
        ...

    async def get(self, case_id: str) -> Outcome | None:
        """The case's outcome, if it was graded."""
        ...

    async def list_recent(self, team_id: str, *, limit: int) -> list[Outcome]:
        """A workspace's newest outcomes first, at most ``limit``."""
        ...
