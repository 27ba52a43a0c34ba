"""Records kept beside the case: conversation, files, the durable inbox, audit log, scores."""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from pydantic import AwareDatetime, Field

from domain.base import DomainModel, utc_now


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


class PostedKind(StrEnum):
    """Which of the bot's own messages in a case thread a reference points at."""

    HEADER = "header"
    """The living case summary at the top of the thread (edited in place)."""
    PLACEHOLDER = "placeholder"
    """A "Looking at this…" message of older versions (kept so their rows still load)."""
    REPLY = "reply"
    """A turn's answer (key: the work's dedup key)."""
    PROMPT = "prompt"
    """A question with buttons (key: the confirmation id)."""
    REQUEST = "request"
    """The reply an evidence request card was shown in (key: the request id)."""
    STRATEGY = "strategy"
    """A remediation workflow offered for approval (key: the strategy id)."""
    TOOLS_READ = "tools_read"
    """What a turn answering tool runs read, kept when its model failed, so that Retry reads the
    same (key: the turn's key; never posted)."""
    SCORE_FILE = "score_file"
    """A scoring's full result shared as a file (key: the score id)."""


class PostedMessage(DomainModel):
    """Where one of the bot's messages for a case is, so it can be found and edited later."""

    case_id: str
    kind: PostedKind
    key: str = ""
    channel_id: str
    ts: str | None = None
    """None while the message is written down but not posted yet (a reply saved before shown)."""
    body: dict[str, Any] | None = None
    """What is to be shown, kept until it was (a reply survives a restart between save and show)."""
    posted_at: AwareDatetime = Field(default_factory=utc_now)
