"""Session scores: every grading is kept; one active scoring per case, enforced by an index."""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from sqlalchemy import Select, func, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from domain.errors import NotFoundError, ScoringInProgressError
from domain.scoring.model import ScoringStatus, SessionScore
from storage.database.engine import affected, any_row, writing
from storage.schema.tables import CaseRow, ScoreRow

ACTIVE = tuple(s.value for s in ScoringStatus.active_values())


class SqlScoreRepository:
    """The judge's gradings of cases."""

    def __init__(self, sessions: async_sessionmaker[AsyncSession]) -> None:
        self._sessions = sessions

    async def create(self, score: SessionScore) -> SessionScore:
        """Insert a scoring; ScoringInProgressError if one of the case is already active."""
        try:
            async with writing(self._sessions) as session:
                session.add(ScoreRow(**_values(score)))
        except IntegrityError as exc:
            await self._explain(score, exc, creating=True)
            raise
        return score

    async def get(self, score_id: str) -> SessionScore:
        """The scoring, or NotFoundError."""
        async with self._sessions() as session:
            row = await session.get(ScoreRow, score_id)
        if row is None:
            raise NotFoundError(f"no scoring {score_id}")
        return _score(row)

    async def active_for_case(self, case_id: str) -> SessionScore | None:
        """The pending or in-progress scoring of a case, if any."""
        return await self._first(
            select(ScoreRow).where(ScoreRow.case_id == case_id, ScoreRow.status.in_(ACTIVE))
        )

    async def latest_for_case(self, case_id: str) -> SessionScore | None:
        """The newest scoring of a case, in any status."""
        return await self._first(
            select(ScoreRow)
            .where(ScoreRow.case_id == case_id)
            .order_by(ScoreRow.scored_at_us.desc(), ScoreRow.started_at_us.desc())
        )

    async def update(self, score: SessionScore) -> None:
        """Store a scoring's new state (NotFoundError if it was never created)."""
        values = _values(score)
        del values["score_id"], values["case_id"]
        statement = update(ScoreRow).where(ScoreRow.score_id == score.score_id).values(**values)
        try:
            async with writing(self._sessions) as session:
                if await affected(session, statement) != 1:
                    raise NotFoundError(f"no scoring {score.score_id}")
        except IntegrityError as exc:
            await self._explain(score, exc, creating=False)
            raise

    async def list_recent(
        self, team_id: str, *, below: int | None = None, limit: int = 20
    ) -> list[SessionScore]:
        """Recent completed scorings of a workspace, newest first (``below``: score < below)."""
        query = (
            select(ScoreRow)
            .join(CaseRow, CaseRow.case_id == ScoreRow.case_id)
            .where(CaseRow.team_id == team_id, ScoreRow.status == ScoringStatus.COMPLETED.value)
            .order_by(ScoreRow.completed_at_us.desc(), ScoreRow.scored_at_us.desc())
            .limit(limit)
        )
        if below is not None:
            query = query.where(ScoreRow.total_score < below)
        async with self._sessions() as session:
            return [_score(row) for row in await session.scalars(query)]

    async def fail_orphans(self, *, reason: str, now_us: int, spare: Collection[str] = ()) -> int:
        """Mark scorings left pending/in progress (a crash) as failed, except ``spare``."""
        statement = (
            update(ScoreRow)
            .where(ScoreRow.status.in_(ACTIVE), ScoreRow.score_id.not_in(list(spare)))
            .values(status=ScoringStatus.FAILED.value, error_message=reason, completed_at_us=now_us)
        )
        async with writing(self._sessions) as session:
            return await affected(session, statement)

    async def count_by_status(self, case_id: str) -> dict[ScoringStatus, int]:
        """How many scorings of each status a case has (every status present, zero or more)."""
        query = (
            select(ScoreRow.status, func.count())
            .where(ScoreRow.case_id == case_id)
            .group_by(ScoreRow.status)
        )
        counts = dict.fromkeys(ScoringStatus, 0)
        async with self._sessions() as session:
            for status, count in await session.execute(query):
                counts[ScoringStatus(status)] = count
        return counts

    async def _first(self, query: Select[ScoreRow]) -> SessionScore | None:
        async with self._sessions() as session:
            row = await session.scalar(query.limit(1))
        return None if row is None else _score(row)

    async def _explain(self, score: SessionScore, exc: IntegrityError, *, creating: bool) -> None:
        """Raise the domain error an IntegrityError stands for, if it stands for one."""
        if not await any_row(self._sessions, CaseRow.case_id == score.case_id):
            raise NotFoundError(f"no case {score.case_id}") from exc
        if creating and await any_row(self._sessions, ScoreRow.score_id == score.score_id):
            return  # a reused score id is a programming error: let the IntegrityError speak
        if score.status in ScoringStatus.active_values():
            raise ScoringInProgressError(
                f"case {score.case_id} already has a pending or running scoring"
            ) from exc


def _values(score: SessionScore) -> dict[str, Any]:
    # JSON mode: enums become their values and the facts a plain document.
    return score.model_dump(mode="json")


def _score(row: ScoreRow) -> SessionScore:
    return SessionScore.model_validate(
        {name: getattr(row, name) for name in SessionScore.model_fields}
    )
