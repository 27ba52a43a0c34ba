"""The durable work queue's port: its items, their states, and the repository that keeps them.

Listeners record work as items before Slack is acknowledged; the worker (`bot.worker.worker`)
claims, runs and completes them; `storage.inbox` keeps them in the database. They are the queue's
business, not the investigation's: the case model (`ports`, `records`) does not know them, and
the typed payloads the items carry are the bot's (`bot.inbox.work`). The port lives here, beside
the other ports, so the use-case services depend on it and not on the storage package.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from enum import StrEnum
from typing import Any, Protocol

from pydantic import AwareDatetime, Field

from domain.base import DomainModel, utc_now


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


class InboxRepository(Protocol):
    """The durable inbox: listeners record, the worker claims and completes."""

    async def enqueue(self, item: InboxItem) -> bool:
        """Record an item; False if its dedup key was seen before."""
        ...

    async def find(self, dedup_key: str) -> InboxItem | None:
        """The item recorded under ``dedup_key`` (None if there is none, or it was purged)."""
        ...

    async def claim(
        self, *, now: datetime, limit: int = 10, owner: str | None = None
    ) -> list[InboxItem]:
        """Take available items (one per case key at a time); mark them processing by ``owner``."""
        ...

    async def heartbeat(self, *, owner: str, now: datetime) -> int:
        """``owner`` is still working on its processing items: refresh their lock time."""
        ...

    async def release_owned(self, *, owner: str, now: datetime) -> int:
        """Return ``owner``'s processing items to the queue (it stopped or restarted)."""
        ...

    async def held_elsewhere(self, *, owner: str, since: datetime) -> list[InboxItem]:
        """Items another instance is processing and has said so at or after ``since``."""
        ...

    async def complete(self, item_id: int) -> None:
        """Mark an item done."""
        ...

    async def fail(
        self,
        item_id: int,
        *,
        error: str,
        retry_at: datetime | None,
        payload: dict[str, Any] | None = None,
    ) -> None:
        """Record a failure; retry at ``retry_at`` (with ``payload``, if given), else give up."""
        ...

    async def release_stale(self, *, now: datetime, older_than: timedelta) -> int:
        """Return items whose holder has been silent for ``older_than`` (crashed) to the queue."""
        ...

    async def purge_finished(self, *, before: datetime) -> int:
        """Delete done and failed items last changed before ``before``; return how many."""
        ...

    async def backlog(self) -> tuple[int, datetime | None]:
        """Unfinished items (pending or processing): how many, and when the oldest was recorded."""
        ...
