"""Records kept beside the case: conversation, files, the durable inbox, audit log, scores."""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from pydantic import AwareDatetime, Field

from domain.base import DomainModel, utc_now
from domain.scoring.model import CATEGORY_MAX, CaseFacts, Category, ScoringPhase


class MessageRole(StrEnum):
    """Who wrote a conversation message."""

    USER = "user"
    ASSISTANT = "assistant"
    SYSTEM = "system"


class ConversationMessage(DomainModel):
    """One message of the case thread."""

    case_id: str
    ts: str
    """Slack message ts (unique within the case)."""
    author: str
    """Slack user id, or 'bot'."""
    role: MessageRole
    text: str
    files: list[str] = Field(default_factory=list)
    """Ids of files shared with the message."""
    created_at: AwareDatetime = Field(default_factory=utc_now)


class FileStatus(StrEnum):
    """Ingestion state of an uploaded file."""

    RECEIVED = "received"
    INGESTED = "ingested"
    REFUSED = "refused"
    FAILED = "failed"


class StoredFile(DomainModel):
    """An uploaded file's record: where it came from and what became of it."""

    file_id: str
    case_id: str
    filename: str
    content_type: str = "text/plain"
    size_bytes: int = Field(ge=0)
    source_ref: str | None = None
    sha256: str | None = None
    uploaded_by: str
    status: FileStatus = FileStatus.RECEIVED
    line_count: int | None = Field(default=None, ge=0)
    redactions: int = Field(default=0, ge=0)
    error: str | None = None
    created_at: AwareDatetime = Field(default_factory=utc_now)


class InboxStatus(StrEnum):
    """Durable inbox item state."""

    PENDING = "pending"
    PROCESSING = "processing"
    DONE = "done"
    FAILED = "failed"


class InboxItem(DomainModel):
    """Work recorded by a listener before it acknowledges Slack; processed by the worker."""

    item_id: int | None = None
    dedup_key: str
    """Slack event_id, action id + action ts, alert fingerprint… (unique)."""
    team_id: str
    case_key: str | None = None
    """Items with the same key are processed one at a time, in order."""
    kind: str
    payload: dict[str, Any] = Field(default_factory=dict)
    status: InboxStatus = InboxStatus.PENDING
    attempts: int = Field(default=0, ge=0)
    available_at: AwareDatetime = Field(default_factory=utc_now)
    locked_by: str | None = None
    """The worker instance processing it (while processing)."""
    last_error: str | None = None
    created_at: AwareDatetime = Field(default_factory=utc_now)


class AuditEntry(DomainModel):
    """Who did what, when, from where: every status change and every click."""

    entry_id: int | None = None
    team_id: str
    case_id: str | None = None
    actor: str
    action: str
    detail: dict[str, Any] = Field(default_factory=dict)
    source: str
    """slack:button, slack:command, slack:shortcut, console, alert, system."""
    at: AwareDatetime = Field(default_factory=utc_now)


class ScoringStatus(StrEnum):
    """Lifecycle of a scoring: pending → in_progress → completed | failed."""

    PENDING = "pending"
    IN_PROGRESS = "in_progress"
    COMPLETED = "completed"
    FAILED = "failed"

    @classmethod
    def terminal_values(cls) -> frozenset[ScoringStatus]:
        """Statuses a scoring never leaves."""
        return frozenset({cls.COMPLETED, cls.FAILED})

    @classmethod
    def active_values(cls) -> frozenset[ScoringStatus]:
        """Statuses the partial unique index allows once per case."""
        return frozenset({cls.PENDING, cls.IN_PROGRESS})


class SessionScore(DomainModel):
    """One grading of a finished case by the LLM judge (all past scores are kept)."""

    score_id: str
    case_id: str
    prompt_hash: str = Field(max_length=64)
    """The criteria hash of both judge prompts this scoring was made with."""
    total_score: int | None = Field(default=None, ge=0, le=100)
    score_analysis: str | None = None
    missing_tools_analysis: str | None = None
    score_triggered_by: str
    scored_at_us: int
    status: ScoringStatus = ScoringStatus.PENDING
    started_at_us: int
    completed_at_us: int | None = None
    error_message: str | None = None
    """Why a failed scoring failed, in words fit to show people."""
    logical_flow_score: int | None = Field(default=None, ge=0, le=CATEGORY_MAX)
    consistency_score: int | None = Field(default=None, ge=0, le=CATEGORY_MAX)
    tool_relevance_score: int | None = Field(default=None, ge=0, le=CATEGORY_MAX)
    synthesis_quality_score: int | None = Field(default=None, ge=0, le=CATEGORY_MAX)
    facts: CaseFacts | None = None
    """Deterministic facts about the case, computed before the judge is asked."""
    phase: ScoringPhase | None = None
    """The judge turn running (or the last one reached, once finished)."""
    message_channel: str | None = None
    message_ts: str | None = None
    """Where the progress message (updated in place until the result) was posted."""

    def category_scores(self) -> dict[Category, int | None]:
        """The four category scores the judge gave (None where it gave none we could read)."""
        return {category: getattr(self, f"{category.value}_score") for category in Category}
