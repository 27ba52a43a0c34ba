"""Append-only audit log."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from domain.records import AuditEntry
from storage.case_rows import audit_row
from storage.database.engine import writing
from storage.schema.tables import AuditRow


class SqlAuditRepository:
    """Who did what, when, from where; entries outlive their case."""

    def __init__(self, sessions: async_sessionmaker[AsyncSession]) -> None:
        self._sessions = sessions

    async def record(self, entry: AuditEntry) -> None:
        """Append an entry (its ``entry_id`` is assigned by the database)."""
        await self.record_many([entry])

    async def record_many(self, entries: list[AuditEntry]) -> None:
        """Append several entries in one transaction, in order."""
        async with writing(self._sessions) as session:
            session.add_all([audit_row(entry) for entry in entries])

    async def list_for_case(self, case_id: str) -> list[AuditEntry]:
        """A case's entries, oldest first."""
        query = (
            select(AuditRow).where(AuditRow.case_id == case_id).order_by(AuditRow.at, AuditRow.id)
        )
        async with self._sessions() as session:
            rows = list(await session.scalars(query))
        return [
            AuditEntry(
                entry_id=row.id,
                team_id=row.team_id,
                case_id=row.case_id,
                actor=row.actor,
                action=row.action,
                detail=row.detail,
                source=row.source,
                at=row.at,
            )
            for row in rows
        ]

    async def recorded_since(self, team_id: str, action: str, *, since: datetime) -> bool:
        """Whether the workspace has an entry of ``action`` at or after ``since``."""
        query = (
            select(AuditRow.id)
            .where(AuditRow.team_id == team_id, AuditRow.action == action, AuditRow.at >= since)
            .limit(1)
        )
        async with self._sessions() as session:
            return await session.scalar(query) is not None
