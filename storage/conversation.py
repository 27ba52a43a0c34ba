"""Conversation messages of each case, deduplicated by Slack ts."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from domain.errors import NotFoundError
from domain.records import ConversationMessage
from storage.database.engine import any_row, writing
from storage.schema.tables import CaseRow, MessageRow


class SqlMessageRepository:
    """The thread of each case, oldest first."""

    def __init__(self, sessions: async_sessionmaker[AsyncSession]) -> None:
        self._sessions = sessions

    async def add(self, message: ConversationMessage) -> bool:
        """Store a message; False if that ts was already stored for the case."""
        try:
            async with writing(self._sessions) as session:
                session.add(_row(message))
        except IntegrityError:
            # The transaction is rolled back; decide which constraint refused the row.
            same_ts = (MessageRow.case_id == message.case_id) & (MessageRow.ts == message.ts)
            if await any_row(self._sessions, same_ts):
                return False
            if not await any_row(self._sessions, CaseRow.case_id == message.case_id):
                raise NotFoundError(f"no case {message.case_id}") from None
            raise
        return True

    async def add_many(self, messages: list[ConversationMessage]) -> int:
        """Store several messages in one transaction; return how many were new.

        One write instead of one per message (a turn stores the people's messages and the reply
        together); if any was stored already, each is stored on its own, skipping those.
        """
        try:
            async with writing(self._sessions) as session:
                session.add_all([_row(m) for m in messages])
        except IntegrityError:
            return sum([await self.add(m) for m in messages])
        return len(messages)

    async def list_for_case(
        self, case_id: str, *, limit: int | None = None
    ) -> list[ConversationMessage]:
        """Messages oldest first (the newest ``limit`` if given)."""
        query = (
            select(MessageRow)
            .where(MessageRow.case_id == case_id)
            .order_by(MessageRow.ts.desc(), MessageRow.id.desc())
        )
        if limit is not None:
            query = query.limit(limit)
        async with self._sessions() as session:
            rows = list(await session.scalars(query))
        return [_message(row) for row in reversed(rows)]


def _row(message: ConversationMessage) -> MessageRow:
    return MessageRow(
        case_id=message.case_id,
        ts=message.ts,
        author=message.author,
        role=message.role.value,
        text=message.text,
        files=list(message.files),
        created_at=message.created_at,
    )


def _message(row: MessageRow) -> ConversationMessage:
    return ConversationMessage.model_validate(
        {
            "case_id": row.case_id,
            "ts": row.ts,
            "author": row.author,
            "role": row.role,
            "text": row.text,
            "files": row.files,
            "created_at": row.created_at,
        }
    )
