"""Case repository: one JSON document per case, saved with an optimistic version check."""

from __future__ import annotations

import logging
from collections.abc import Sequence

from sqlalchemy import Select, or_, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from domain.case import Case
from domain.errors import DuplicateCaseError, NotFoundError, VersionConflictError
from domain.lifecycle.confirmations import PendingConfirmation
from domain.lifecycle.status import TERMINAL_STATUSES, CaseStatus
from domain.records import AuditEntry
from storage.case_rows import (
    audit_row,
    case_row,
    new_short_id,
    recorded_transitions,
    sync_confirmations,
    to_case,
    to_confirmation,
    transition_audit_rows,
)
from storage.database.engine import affected, any_row, writing
from storage.schema.tables import CaseRow, ConfirmationRow

logger = logging.getLogger(__name__)

SHORT_ID_ATTEMPTS = 20
USER_FILTER_PAGE = 100
OPEN_STATUSES = tuple(s.value for s in CaseStatus if s not in TERMINAL_STATUSES)


class SqlCaseRepository:
    """Cases in SQL: identity columns for lookups, the aggregate as a JSON document."""

    def __init__(self, sessions: async_sessionmaker[AsyncSession]) -> None:
        self._sessions = sessions

    async def add(self, case: Case) -> Case:
        """Store a new case (assigns its short id and version); DuplicateCaseError if taken."""
        for _ in range(SHORT_ID_ATTEMPTS):
            stored = case.model_copy(deep=True, update={"short_id": new_short_id(), "version": 1})
            try:
                await self._insert(stored)
            except IntegrityError as exc:
                if await self._exists(stored):
                    raise DuplicateCaseError(
                        f"a case already exists for thread {case.thread_ts} in {case.channel_id}"
                    ) from exc
                if not await any_row(self._sessions, CaseRow.short_id == stored.short_id):
                    raise
                logger.info("short id collision, retrying", extra={"short_id": stored.short_id})
                continue
            return stored
        raise RuntimeError(f"no free short id after {SHORT_ID_ATTEMPTS} attempts")

    async def get(self, case_id: str) -> Case:
        """The case, or NotFoundError."""
        case = await self._one(select(CaseRow).where(CaseRow.case_id == case_id))
        if case is None:
            raise NotFoundError(f"no case {case_id}")
        return case

    async def get_by_thread(self, team_id: str, channel_id: str, thread_ts: str) -> Case | None:
        """The case a Slack thread belongs to."""
        return await self._one(
            select(CaseRow).where(
                CaseRow.team_id == team_id,
                CaseRow.channel_id == channel_id,
                CaseRow.thread_ts == thread_ts,
            )
        )

    async def get_by_short_id(self, team_id: str, short_id: str) -> Case | None:
        """The case with this human id in this workspace (case-insensitive)."""
        return await self._one(
            select(CaseRow).where(
                CaseRow.team_id == team_id, CaseRow.short_id == short_id.strip().upper()
            )
        )

    async def save(self, case: Case, *, audit: Sequence[AuditEntry] = ()) -> Case:
        """Save if nobody saved since it was loaded (else VersionConflictError).

        One transaction writes the case, its confirmations' mirror, an audit row for each new
        status transition and then ``audit``: the entries of the change being saved (a click's
        answer), so the change and its record commit together or not at all.
        """
        async with writing(self._sessions) as session:
            stored = (
                await session.execute(
                    select(CaseRow.version, CaseRow.short_id, CaseRow.document).where(
                        CaseRow.case_id == case.case_id
                    )
                )
            ).one_or_none()
            if stored is None:
                raise NotFoundError(f"no case {case.case_id}")
            saved = case.model_copy(
                deep=True, update={"version": case.version + 1, "short_id": stored.short_id}
            )
            await self._update_document(session, saved, expected=case.version)
            await sync_confirmations(session, saved)
            transitions = transition_audit_rows(
                saved, already_recorded=recorded_transitions(stored.document)
            )
            session.add_all([*transitions, *(audit_row(entry) for entry in audit)])
        return saved

    async def list_cases(
        self,
        team_id: str,
        *,
        open_only: bool = True,
        user_id: str | None = None,
        channel_id: str | None = None,
        limit: int = 20,
    ) -> list[Case]:
        """Recent cases of a workspace, newest first (``user_id``: opened or took part;
        ``channel_id``: only that channel's)."""
        query = (
            select(CaseRow)
            .where(CaseRow.team_id == team_id)
            .order_by(CaseRow.created_at.desc(), CaseRow.case_id.desc())
        )
        if open_only:
            query = query.where(CaseRow.status.in_(OPEN_STATUSES))
        if channel_id is not None:
            query = query.where(CaseRow.channel_id == channel_id)
        async with self._sessions() as session:
            if user_id is None:
                return [to_case(row) for row in await session.scalars(query.limit(limit))]
            return await _involving(session, query, user_id, limit)

    async def find_confirmation(
        self, team_id: str, confirmation_id: str
    ) -> tuple[str, PendingConfirmation] | None:
        """The case id and confirmation for a button click (only within the same workspace)."""
        query = (
            select(ConfirmationRow)
            .join(CaseRow, CaseRow.case_id == ConfirmationRow.case_id)
            .where(ConfirmationRow.confirmation_id == confirmation_id, CaseRow.team_id == team_id)
        )
        async with self._sessions() as session:
            row = await session.scalar(query)
        return None if row is None else (row.case_id, to_confirmation(row))

    async def _insert(self, case: Case) -> None:
        async with writing(self._sessions) as session:
            session.add(case_row(case))
            # Flush the case first so its unique constraints decide before anything else.
            await session.flush()
            await sync_confirmations(session, case)
            session.add_all(transition_audit_rows(case, already_recorded=[]))

    async def _update_document(self, session: AsyncSession, case: Case, *, expected: int) -> None:
        matched = await affected(
            session,
            update(CaseRow)
            .where(CaseRow.case_id == case.case_id, CaseRow.version == expected)
            .values(
                status=case.status.value,
                version=CaseRow.version + 1,
                document=case.model_dump(mode="json"),
                updated_at=case.updated_at,
            ),
        )
        if matched != 1:
            raise VersionConflictError(
                f"case {case.short_id} changed since version {expected}; reload and retry"
            )

    async def _one(self, query: Select[CaseRow]) -> Case | None:
        async with self._sessions() as session:
            row = await session.scalar(query)
        return None if row is None else to_case(row)

    async def _exists(self, case: Case) -> bool:
        same_thread = (
            (CaseRow.team_id == case.team_id)
            & (CaseRow.channel_id == case.channel_id)
            & (CaseRow.thread_ts == case.thread_ts)
        )
        return await any_row(self._sessions, or_(CaseRow.case_id == case.case_id, same_thread))


async def _involving(
    session: AsyncSession, query: Select[CaseRow], user_id: str, limit: int
) -> list[Case]:
    # Participants live in the document, which no portable SQL can search; open cases per
    # workspace are few, so filtering pages of them here is cheap.
    found: list[Case] = []
    offset = 0
    while len(found) < limit:
        rows = list(await session.scalars(query.offset(offset).limit(USER_FILTER_PAGE)))
        found.extend(
            case
            for case in map(to_case, rows)
            if user_id == case.user_id or user_id in case.participants
        )
        if len(rows) < USER_FILTER_PAGE:
            break
        offset += USER_FILTER_PAGE
    return found[:limit]
