"""Uploaded files' records."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from domain.errors import NotFoundError
from domain.records import StoredFile
from storage.database.engine import affected, any_row, writing
from storage.schema.tables import CaseRow, FileRow


class SqlFileRepository:
    """What became of each file shared into a case."""

    def __init__(self, sessions: async_sessionmaker[AsyncSession]) -> None:
        self._sessions = sessions

    async def add(self, record: StoredFile) -> None:
        """Store a new file record (NotFoundError if its case does not exist)."""
        try:
            async with writing(self._sessions) as session:
                session.add(FileRow(**_values(record)))
        except IntegrityError:
            if not await any_row(self._sessions, CaseRow.case_id == record.case_id):
                raise NotFoundError(f"no case {record.case_id}") from None
            raise

    async def update(self, record: StoredFile) -> None:
        """Replace a file record (NotFoundError if there is none)."""
        async with writing(self._sessions) as session:
            statement = (
                update(FileRow).where(FileRow.file_id == record.file_id).values(**_values(record))
            )
            if await affected(session, statement) != 1:
                raise NotFoundError(f"no file {record.file_id}")

    async def get(self, file_id: str) -> StoredFile:
        """The record, or NotFoundError."""
        async with self._sessions() as session:
            row = await session.get(FileRow, file_id)
        if row is None:
            raise NotFoundError(f"no file {file_id}")
        return _record(row)

    async def list_for_case(self, case_id: str) -> list[StoredFile]:
        """A case's files, oldest first."""
        query = (
            select(FileRow)
            .where(FileRow.case_id == case_id)
            .order_by(FileRow.created_at, FileRow.file_id)
        )
        async with self._sessions() as session:
            return [_record(row) for row in await session.scalars(query)]


def _values(record: StoredFile) -> dict[str, Any]:
    values = record.model_dump()
    values["status"] = record.status.value
    return values


def _record(row: FileRow) -> StoredFile:
    return StoredFile.model_validate({name: getattr(row, name) for name in StoredFile.model_fields})
