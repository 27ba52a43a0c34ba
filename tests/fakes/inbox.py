"""An in-memory durable inbox with the SQL one's claiming rules (one item per case key)."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from domain.queue import InboxItem, InboxStatus


@dataclass
class MemoryInbox:
    """InboxRepository in memory."""

    items: list[InboxItem] = field(default_factory=list)
    locked_at: dict[int, datetime] = field(default_factory=dict)
    purges: list[datetime] = field(default_factory=list)
    """The ``before`` of every purge asked for (this inbox deletes nothing)."""
    _ids: itertools.count[int] = field(default_factory=lambda: itertools.count(1))

    async def enqueue(self, item: InboxItem) -> bool:
        if any(i.dedup_key == item.dedup_key for i in self.items):
            return False
        self.items.append(item.model_copy(update={"item_id": next(self._ids)}))
        return True

    async def find(self, dedup_key: str) -> InboxItem | None:
        found = [i for i in self.items if i.dedup_key == dedup_key]
        return found[0].model_copy() if found else None

    async def claim(
        self, *, now: datetime, limit: int = 10, owner: str | None = None
    ) -> list[InboxItem]:
        busy = {i.case_key for i in self.items if i.status is InboxStatus.PROCESSING}
        claimed: list[InboxItem] = []
        for item in self.items:
            if len(claimed) >= limit or item.status is not InboxStatus.PENDING:
                continue
            if item.available_at > now or (item.case_key is not None and item.case_key in busy):
                continue
            item.status = InboxStatus.PROCESSING
            item.attempts += 1
            item.locked_by = owner
            assert item.item_id is not None
            self.locked_at[item.item_id] = now
            if item.case_key is not None:
                busy.add(item.case_key)
            claimed.append(item.model_copy())
        return claimed

    async def complete(self, item_id: int) -> None:
        self._get(item_id).status = InboxStatus.DONE

    async def fail(
        self,
        item_id: int,
        *,
        error: str,
        retry_at: datetime | None,
        payload: dict[str, Any] | None = None,
    ) -> None:
        item = self._get(item_id)
        item.last_error = error
        item.status = InboxStatus.FAILED if retry_at is None else InboxStatus.PENDING
        if retry_at is not None:
            item.available_at = retry_at
            item.locked_by = None
            if payload is not None:
                item.payload = payload

    async def release_stale(self, *, now: datetime, older_than: timedelta) -> int:
        def stale(item: InboxItem, locked: datetime | None) -> bool:
            return locked is not None and locked < now - older_than

        return self._release(stale)

    async def heartbeat(self, *, owner: str, now: datetime) -> int:
        mine = [i for i in self._processing() if i.locked_by == owner]
        for item in mine:
            assert item.item_id is not None
            self.locked_at[item.item_id] = now
        return len(mine)

    async def release_owned(self, *, owner: str, now: datetime) -> int:
        return self._release(lambda item, _: item.locked_by == owner)

    async def held_elsewhere(self, *, owner: str, since: datetime) -> list[InboxItem]:
        return [
            i.model_copy()
            for i in self._processing()
            if i.locked_by != owner and self.locked_at[i.item_id or 0] >= since
        ]

    async def purge_finished(self, *, before: datetime) -> int:
        self.purges.append(before)
        return 0

    async def backlog(self) -> tuple[int, datetime | None]:
        waiting = [
            i for i in self.items if i.status in (InboxStatus.PENDING, InboxStatus.PROCESSING)
        ]
        return len(waiting), min((i.created_at for i in waiting), default=None)

    def statuses(self) -> dict[str, InboxStatus]:
        return {i.dedup_key: i.status for i in self.items}

    def _processing(self) -> list[InboxItem]:
        return [i for i in self.items if i.status is InboxStatus.PROCESSING]

    def _release(self, which: Callable[[InboxItem, datetime | None], bool]) -> int:
        released = 0
        for item in self._processing():
            assert item.item_id is not None
            if which(item, self.locked_at.get(item.item_id)):
                item.status, item.locked_by = InboxStatus.PENDING, None
                released += 1
        return released

    def _get(self, item_id: int) -> InboxItem:
        return next(i for i in self.items if i.item_id == item_id)
