"""Append-only audit log."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from domain.records import AuditEntry
from storage.db import writing
from storage.tables import AuditRow


class SqlAuditRepository:
    """Who did what, when, from where; entries outlive their case."""

    def __init__(self, sessions: async_sessionmaker[AsyncSession]) -> None:
        self._sessions = sessions

    async def record(self, entry: AuditEntry) -> None:
        """Append an entry (its ``entry_id`` is assigned by the database)."""
        async with writing(self._sessions) as session:
            session.add(
                AuditRow(
                    team_id=entry.team_id,
                    case_id=entry.case_id,
                    actor=entry.actor,
                    action=entry.action,
                    detail=entry.detail,
                    source=entry.source,
                    at=entry.at,
                )
            )

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
