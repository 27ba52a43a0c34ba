"""Feedback on root causes and the outcomes of finished cases, for calibration from real use."""

from __future__ import annotations

from sqlalchemy import delete, select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from domain.outcomes import ConclusionFeedback, Outcome, Rating, Verdict
from storage.database.engine import writing
from storage.schema.tables import FeedbackRow, OutcomeRow


class SqlFeedbackRepository:
    """FeedbackRepository on the ``conclusion_feedback`` table."""

    def __init__(self, sessions: async_sessionmaker[AsyncSession]) -> None:
        self._sessions = sessions

    async def record(self, feedback: ConclusionFeedback) -> None:
        """Keep this rating, replacing the same person's earlier one of that conclusion."""
        async with writing(self._sessions) as session:
            await session.execute(
                delete(FeedbackRow).where(
                    FeedbackRow.case_id == feedback.case_id,
                    FeedbackRow.conclusion_id == feedback.conclusion_id,
                    FeedbackRow.user_id == feedback.user_id,
                )
            )
            session.add(FeedbackRow(**{**feedback.model_dump(), "rating": feedback.rating.value}))

    async def list_for_case(self, case_id: str) -> list[ConclusionFeedback]:
        """Every rating of a case's conclusions, oldest first."""
        query = (
            select(FeedbackRow)
            .where(FeedbackRow.case_id == case_id)
            .order_by(FeedbackRow.at, FeedbackRow.id)
        )
        async with self._sessions() as session:
            rows = list(await session.scalars(query))
        return [
            ConclusionFeedback(
                team_id=row.team_id,
                case_id=row.case_id,
                conclusion_id=row.conclusion_id,
                user_id=row.user_id,
                rating=Rating(row.rating),
                confidence=row.confidence,
                model=row.model,
                at=row.at,
            )
            for row in rows
        ]


class SqlOutcomeRepository:
    """OutcomeRepository on the ``case_outcomes`` table (one row per case)."""

    def __init__(self, sessions: async_sessionmaker[AsyncSession]) -> None:
        self._sessions = sessions

    async def record(self, outcome: Outcome) -> None:
        """Keep the case's outcome, replacing an earlier grading of the same case."""
        async with writing(self._sessions) as session:
            await session.execute(delete(OutcomeRow).where(OutcomeRow.case_id == outcome.case_id))
            session.add(OutcomeRow(**{**outcome.model_dump(), "verdict": outcome.verdict.value}))

    async def get(self, case_id: str) -> Outcome | None:
        """The case's outcome, if it was graded."""
        async with self._sessions() as session:
            row = await session.get(OutcomeRow, case_id)
        return _outcome(row) if row else None

    async def list_recent(self, team_id: str, *, limit: int) -> list[Outcome]:
        """A workspace's newest outcomes first (by when their case finished), at most ``limit``."""
        query = (
            select(OutcomeRow)
            .where(OutcomeRow.team_id == team_id)
            .order_by(OutcomeRow.finished_at.desc(), OutcomeRow.case_id)
            .limit(limit)
        )
        async with self._sessions() as session:
            rows = list(await session.scalars(query))
        return [_outcome(row) for row in rows]


def _outcome(row: OutcomeRow) -> Outcome:
    return Outcome(
        team_id=row.team_id,
        case_id=row.case_id,
        conclusion_id=row.conclusion_id,
        confidence=row.confidence,
        model=row.model,
        verdict=Verdict(row.verdict),
        reason=row.reason,
        finished_at=row.finished_at,
        recorded_at=row.recorded_at,
    )
