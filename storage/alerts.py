"""Alert groups: the active group of an identity is unique, so one group opens one case."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import Select, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from domain.errors import NotFoundError
from domain.workflows.alert_groups import AlertGroupRecord, GroupTouch
from domain.workflows.signals import SignalGroup, SignalStatus
from storage.database.engine import affected, writing
from storage.schema.tables import AlertGroupRow

TOUCH_ATTEMPTS = 3


class SqlAlertGroupRepository:
    """Alert groups in SQL; the partial unique index settles concurrent first notifications."""

    def __init__(self, sessions: async_sessionmaker[AsyncSession]) -> None:
        self._sessions = sessions

    async def touch(
        self, *, team_id: str, channel_id: str, group: SignalGroup, now: datetime
    ) -> GroupTouch:
        """Create the active group, or count this notification against it."""
        for attempt in range(1, TOUCH_ATTEMPTS + 1):
            try:
                return await self._touch_once(team_id, channel_id, group, now)
            except IntegrityError:
                # Another notification of the same group created it first: count against it.
                if attempt == TOUCH_ATTEMPTS:
                    raise
        raise AssertionError("unreachable")

    async def _touch_once(
        self, team_id: str, channel_id: str, group: SignalGroup, now: datetime
    ) -> GroupTouch:
        async with writing(self._sessions) as session:
            # FOR UPDATE on PostgreSQL, so concurrent repeats never lose a count; SQLite
            # serialises writers with BEGIN IMMEDIATE instead.
            row = await session.scalar(_active(team_id, group.identity).with_for_update())
            if row is None:
                row = _new_row(team_id, channel_id, group, now)
                session.add(row)
                await session.flush()
                return GroupTouch(_record(row), created=True)
            previous = SignalStatus(row.status)
            known = set(row.fingerprints)
            fresh = [fp for fp in dict.fromkeys(group.fingerprints) if fp not in known]
            row.status = group.status.value
            row.latest = group.model_dump(mode="json")
            row.fingerprints = [*row.fingerprints, *fresh]
            row.occurrence_count += 1
            row.last_seen = now
            return GroupTouch(_record(row), False, previous, fresh)

    async def find_active(self, team_id: str, group_hash: str) -> AlertGroupRecord | None:
        """The active group with this identity."""
        async with self._sessions() as session:
            row = await session.scalar(_active(team_id, group_hash))
        return _record(row) if row is not None else None

    async def for_case(self, case_id: str) -> AlertGroupRecord | None:
        """The group that opened a case (the newest, should there be several)."""
        query = (
            select(AlertGroupRow)
            .where(AlertGroupRow.case_id == case_id)
            .order_by(AlertGroupRow.first_seen.desc())
            .limit(1)
        )
        async with self._sessions() as session:
            row = await session.scalar(query)
        return _record(row) if row is not None else None

    async def set_thread(self, group_id: str, *, alert_ts: str) -> None:
        """Remember the alert's message."""
        await self._set(group_id, alert_ts=alert_ts)

    async def set_case(self, group_id: str, *, case_id: str) -> None:
        """Remember the case the group opened."""
        await self._set(group_id, case_id=case_id)

    async def retire(self, group_id: str, *, now: datetime) -> None:
        """The group's case is finished; a later notification starts a new group and case."""
        await self._set(group_id, retired_at=now)

    async def _set(self, group_id: str, **values: Any) -> None:
        statement = update(AlertGroupRow).where(AlertGroupRow.group_id == group_id).values(**values)
        async with writing(self._sessions) as session:
            if await affected(session, statement) != 1:
                raise NotFoundError(f"no alert group {group_id}")


def _active(team_id: str, group_hash: str) -> Select[AlertGroupRow]:
    return select(AlertGroupRow).where(
        AlertGroupRow.team_id == team_id,
        AlertGroupRow.group_hash == group_hash,
        AlertGroupRow.retired_at.is_(None),
    )


def _new_row(team_id: str, channel_id: str, group: SignalGroup, now: datetime) -> AlertGroupRow:
    record = AlertGroupRecord(
        team_id=team_id,
        group_hash=group.identity,
        group_key=group.group_key,
        status=group.status,
        channel_id=channel_id,
        fingerprints=list(dict.fromkeys(group.fingerprints)),
        latest=group,
        first_seen=now,
        last_seen=now,
    )
    return AlertGroupRow(
        group_id=record.group_id,
        team_id=record.team_id,
        group_hash=record.group_hash,
        group_key=record.group_key,
        status=record.status.value,
        channel_id=record.channel_id,
        alert_ts=None,
        case_id=None,
        fingerprints=record.fingerprints,
        latest=group.model_dump(mode="json"),
        occurrence_count=1,
        first_seen=now,
        last_seen=now,
        retired_at=None,
    )


def _record(row: AlertGroupRow) -> AlertGroupRecord:
    return AlertGroupRecord(
        group_id=row.group_id,
        team_id=row.team_id,
        group_hash=row.group_hash,
        group_key=row.group_key,
        status=SignalStatus(row.status),
        channel_id=row.channel_id,
        alert_ts=row.alert_ts,
        case_id=row.case_id,
        fingerprints=list(row.fingerprints),
        latest=SignalGroup.model_validate(row.latest),
        occurrence_count=row.occurrence_count,
        first_seen=row.first_seen,
        last_seen=row.last_seen,
        retired_at=row.retired_at,
    )
