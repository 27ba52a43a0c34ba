"""The bot's messages of each case: one row per case, kind and key, the newest wins."""

from __future__ import annotations

from sqlalchemy import ColumnElement, delete, select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from domain.records import PostedKind, PostedMessage
from storage.database.engine import writing
from storage.schema.tables import PostedMessageRow


class SqlPostedMessageRepository:
    """PostedMessageRepository on SQLAlchemy."""

    def __init__(self, sessions: async_sessionmaker[AsyncSession]) -> None:
        self._sessions = sessions

    async def remember(self, message: PostedMessage) -> None:
        """Replace any earlier row of the same case, kind and key with this one."""
        async with writing(self._sessions) as session:
            identity = _identity(message.case_id, message.kind, message.key)
            await session.execute(delete(PostedMessageRow).where(*identity))
            session.add(
                PostedMessageRow(
                    case_id=message.case_id,
                    kind=message.kind.value,
                    key=message.key,
                    channel_id=message.channel_id,
                    ts=message.ts,
                    body=message.body,
                    posted_at=message.posted_at,
                )
            )

    async def find(self, case_id: str, kind: PostedKind, key: str = "") -> PostedMessage | None:
        """The message of that kind and key, if there is one."""
        query = select(PostedMessageRow).where(*_identity(case_id, kind, key))
        async with self._sessions() as session:
            row = (await session.scalars(query)).first()
        if row is None:
            return None
        return PostedMessage(
            case_id=row.case_id,
            kind=PostedKind(row.kind),
            key=row.key,
            channel_id=row.channel_id,
            ts=row.ts,
            body=row.body,
            posted_at=row.posted_at,
        )


def _identity(case_id: str, kind: PostedKind, key: str) -> tuple[ColumnElement[bool], ...]:
    return (
        PostedMessageRow.case_id == case_id,
        PostedMessageRow.kind == kind.value,
        PostedMessageRow.key == key,
    )
