"""The durable inbox: listeners record work, workers claim it one case key at a time."""

from __future__ import annotations

import asyncio
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import (
    ColumnElement,
    Integer,
    Select,
    and_,
    bindparam,
    delete,
    exists,
    func,
    or_,
    select,
    update,
)
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker
from sqlalchemy.orm import aliased

from domain.base import utc_now
from domain.errors import NotFoundError
from domain.queue import InboxItem, InboxStatus
from storage.database.engine import affected, any_row, writing
from storage.schema.tables import InboxRow

PENDING, PROCESSING = InboxStatus.PENDING.value, InboxStatus.PROCESSING.value
UNLOCKED: dict[str, Any] = {"locked_at": None, "locked_by": None}


class SqlInboxRepository:
    """Inbox items in SQL; on PostgreSQL several replicas can claim concurrently."""

    def __init__(
        self,
        sessions: async_sessionmaker[AsyncSession],
        *,
        candidates: Select[InboxRow] | None = None,
    ) -> None:
        """``candidates`` is the query a claim chooses from (default: the oldest available item of
        each free case key); a test gives one that also picks items a racing replica takes."""
        self._sessions = sessions
        self._candidates = _CLAIMABLE if candidates is None else candidates
        self._waiting: list[tuple[InboxItem, asyncio.Future[bool]]] = []
        self._recording = asyncio.Lock()

    async def enqueue(self, item: InboxItem) -> bool:
        """Record an item; False if its dedup key was seen before.

        Items recorded at the same moment (a burst of events) share one transaction: whoever
        gets to write takes every item waiting by then, so a burst costs a few writes, not one
        per event, while Slack waits for each acknowledgement.
        """
        recorded: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        self._waiting.append((item, recorded))
        async with self._recording:
            if not recorded.done():
                batch, self._waiting = self._waiting, []
                await self._record(batch)
        return recorded.result()

    async def _record(self, batch: list[tuple[InboxItem, asyncio.Future[bool]]]) -> None:
        try:
            try:
                # Urgent: Slack is waiting for the acknowledgements that follow this write.
                async with writing(self._sessions, urgent=True) as session:
                    session.add_all([_row(item) for item, _ in batch])
                for _, recorded in batch:
                    recorded.set_result(True)
            except IntegrityError:
                # A duplicate delivery among them: record each on its own.
                for item, recorded in batch:
                    await _settle(recorded, self._record_one(item))
        except Exception as error:  # each caller raises it from its own future
            for _, recorded in batch:
                if not recorded.done():
                    recorded.set_exception(error)
        except BaseException:  # cancelled while writing: the others wait for the next writer
            self._waiting[:0] = [(i, f) for i, f in batch if not f.done()]
            raise

    async def _record_one(self, item: InboxItem) -> bool:
        try:
            async with writing(self._sessions, urgent=True) as session:
                session.add(_row(item))
        except IntegrityError:
            if await any_row(self._sessions, InboxRow.dedup_key == item.dedup_key):
                return False
            raise
        return True

    async def find(self, dedup_key: str) -> InboxItem | None:
        """The item recorded under ``dedup_key`` (None if there is none, or it was purged)."""
        async with self._sessions() as session:
            row = await session.scalar(select(InboxRow).where(InboxRow.dedup_key == dedup_key))
        return None if row is None else _item(row)

    async def claim(
        self, *, now: datetime, limit: int = 10, owner: str | None = None
    ) -> list[InboxItem]:
        """Take available items, oldest first, at most one per case key, none for a busy key.

        ``owner`` names the worker instance taking them (see `heartbeat`, `release_owned`).
        """
        if limit <= 0:
            return []
        async with writing(self._sessions) as session:
            candidates = [
                _item(row)
                for row in await session.scalars(self._candidates, {"now": now, "limit": limit})
            ]
            taken = await _mark_processing(session, candidates, now, owner)
            if taken is None:  # refused as a whole: item by item, each gets what it can
                taken = {
                    item.item_id
                    for item in candidates
                    if await _mark_processing(session, [item], now, owner)
                }
        changes = {"status": InboxStatus.PROCESSING, "locked_by": owner}
        return [
            item.model_copy(update={**changes, "attempts": item.attempts + 1})
            for item in candidates
            if item.item_id in taken
        ]

    async def heartbeat(self, *, owner: str, now: datetime) -> int:
        """``owner`` is still working on its items: their lock time becomes ``now``."""
        statement = update(InboxRow).where(*_held_by(owner)).values(locked_at=now)
        async with writing(self._sessions) as session:
            return await affected(session, statement)

    async def release_owned(self, *, owner: str, now: datetime) -> int:
        """Return ``owner``'s processing items to the queue (it stopped, or restarted)."""
        statement = (
            update(InboxRow)
            .where(*_held_by(owner))
            .values(status=PENDING, updated_at=now, **UNLOCKED)
        )
        async with writing(self._sessions) as session:
            return await affected(session, statement)

    async def held_elsewhere(self, *, owner: str, since: datetime) -> list[InboxItem]:
        """Items another instance is processing and has said so at or after ``since``."""
        query = select(InboxRow).where(
            InboxRow.status == PROCESSING,
            or_(InboxRow.locked_by.is_(None), InboxRow.locked_by != owner),
            InboxRow.locked_at >= since,
        )
        async with self._sessions() as session:
            return [_item(row) for row in await session.scalars(query)]

    async def complete(self, item_id: int) -> None:
        """Mark an item done."""
        await self._set(item_id, status=InboxStatus.DONE.value, **UNLOCKED)

    async def fail(
        self,
        item_id: int,
        *,
        error: str,
        retry_at: datetime | None,
        payload: dict[str, Any] | None = None,
    ) -> None:
        """Record a failure; retry at ``retry_at`` (with ``payload``, if given), else give up."""
        if retry_at is None:
            await self._set(item_id, status=InboxStatus.FAILED.value, last_error=error, **UNLOCKED)
            return
        changes: dict[str, Any] = {} if payload is None else {"payload": payload}
        await self._set(
            item_id, status=PENDING, last_error=error, available_at=retry_at, **UNLOCKED, **changes
        )

    async def release_stale(self, *, now: datetime, older_than: timedelta) -> int:
        """Return items whose holder has not been heard of for ``older_than`` to the queue.

        A live holder keeps its items' lock time fresh (`heartbeat`); one that has not for that
        long has crashed. Returns how many were released.
        """
        statement = (
            update(InboxRow)
            .where(InboxRow.status == PROCESSING, InboxRow.locked_at < now - older_than)
            .values(status=PENDING, updated_at=now, **UNLOCKED)
        )
        async with writing(self._sessions) as session:
            return await affected(session, statement)

    async def purge_finished(self, *, before: datetime) -> int:
        """Delete done and failed items last changed before ``before``; return how many.

        What people sent is kept only while it may still be redelivered or resumed.
        """
        statement = delete(InboxRow).where(
            InboxRow.status.in_((InboxStatus.DONE.value, InboxStatus.FAILED.value)),
            InboxRow.updated_at < before,
        )
        async with writing(self._sessions) as session:
            return await affected(session, statement)

    async def backlog(self) -> tuple[int, datetime | None]:
        """Unfinished items (pending or processing): how many, and when the oldest was recorded."""
        query = select(func.count(), func.min(InboxRow.created_at)).where(
            InboxRow.status.in_((PENDING, PROCESSING))
        )
        async with self._sessions() as session:
            count, oldest = (await session.execute(query)).one()
        return int(count), oldest

    async def _set(self, item_id: int, **values: Any) -> None:
        statement = (
            update(InboxRow)
            .where(InboxRow.item_id == item_id)
            .values(updated_at=utc_now(), **values)
        )
        async with writing(self._sessions) as session:
            if await affected(session, statement) != 1:
                raise NotFoundError(f"no inbox item {item_id}")


def _held_by(owner: str) -> tuple[ColumnElement[bool], ...]:
    """The items ``owner`` is processing."""
    return InboxRow.status == PROCESSING, InboxRow.locked_by == owner


def _claimable() -> Select[InboxRow]:
    """Available pending items that are the oldest of their case key, whose key is not busy.

    Parameters ``now`` and ``limit``. Built once: building it costs more than running it.
    """
    now = bindparam("now", type_=InboxRow.available_at.type)
    busy = select(InboxRow.case_key).where(
        InboxRow.status == PROCESSING, InboxRow.case_key.is_not(None)
    )
    older = aliased(InboxRow)
    earlier_same_key = exists().where(
        older.case_key == InboxRow.case_key,
        older.status == PENDING,
        older.available_at <= now,
        or_(
            older.available_at < InboxRow.available_at,
            and_(older.available_at == InboxRow.available_at, older.item_id < InboxRow.item_id),
        ),
    )
    return (
        select(InboxRow)
        .where(
            InboxRow.status == PENDING,
            InboxRow.available_at <= now,
            or_(InboxRow.case_key.is_(None), InboxRow.case_key.not_in(busy)),
            ~earlier_same_key,
        )
        .order_by(InboxRow.available_at, InboxRow.item_id)
        .limit(bindparam("limit", type_=Integer))
        # PostgreSQL: replicas skip each other's candidates; SQLite renders no FOR UPDATE and
        # serialises writers with BEGIN IMMEDIATE instead.
        .with_for_update(skip_locked=True, of=InboxRow)
    )


_CLAIMABLE = _claimable()


async def _mark_processing(
    session: AsyncSession, items: list[InboxItem], now: datetime, owner: str | None
) -> set[int | None] | None:
    """Mark items processing by ``owner`` in one statement; the ids it got.

    None if the one-processing-per-key index refused the statement: another replica claimed an
    item of one of these keys meanwhile (PostgreSQL). A savepoint keeps the transaction usable.
    """
    if not items:
        return set()
    statement = (
        update(InboxRow)
        .where(InboxRow.item_id.in_([i.item_id for i in items]), InboxRow.status == PENDING)
        .values(
            status=PROCESSING,
            attempts=InboxRow.attempts + 1,
            locked_at=now,
            locked_by=owner,
            updated_at=now,
        )
        .returning(InboxRow.item_id)
    )
    try:
        async with session.begin_nested():
            result = await session.execute(
                statement, execution_options={"synchronize_session": False}
            )
            return set(result.scalars())
    except IntegrityError:
        return None


async def _settle(future: asyncio.Future[bool], outcome: Any) -> None:
    """Resolve ``future`` with what awaiting ``outcome`` gives or raises."""
    try:
        future.set_result(await outcome)
    except Exception as error:
        future.set_exception(error)


def _row(item: InboxItem) -> InboxRow:
    return InboxRow(
        dedup_key=item.dedup_key,
        team_id=item.team_id,
        case_key=item.case_key,
        kind=item.kind,
        payload=item.payload,
        status=item.status.value,
        attempts=item.attempts,
        available_at=item.available_at,
        locked_at=None,
        locked_by=None,
        last_error=item.last_error,
        created_at=item.created_at,
        updated_at=item.created_at,
    )


def _item(row: InboxRow) -> InboxItem:
    return InboxItem(
        item_id=row.item_id,
        dedup_key=row.dedup_key,
        team_id=row.team_id,
        case_key=row.case_key,
        kind=row.kind,
        payload=row.payload,
        status=InboxStatus(row.status),
        attempts=row.attempts,
        available_at=row.available_at,
        locked_by=row.locked_by,
        last_error=row.last_error,
        created_at=row.created_at,
    )
