"""LLM call records: what every call cost and how it ended, kept per case, and their sums."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import Select, func, or_, select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker
from sqlalchemy.orm import InstrumentedAttribute

from domain.budget import LLMSpend
from domain.llm import LLMCallOutcome, LLMCallRecord
from storage.database.engine import writing
from storage.schema.tables import CaseRow, LLMCallRow


class SqlLLMCallRepository:
    """Implements ``domain.llm.LLMCallRecorder`` on the ``llm_calls`` table."""

    def __init__(self, sessions: async_sessionmaker[AsyncSession]) -> None:
        self._sessions = sessions

    async def record(self, record: LLMCallRecord) -> None:
        """Append one call's record."""
        async with writing(self._sessions) as session:
            session.add(
                LLMCallRow(
                    case_id=record.case_id,
                    model=record.model,
                    template=record.template,
                    template_hash=record.template_hash,
                    latency_ms=record.latency_ms,
                    prompt_tokens=record.prompt_tokens,
                    completion_tokens=record.completion_tokens,
                    cost_usd=record.cost_usd,
                    outcome=record.outcome.value,
                    error=record.error,
                    at=record.at,
                )
            )

    async def list_for_case(self, case_id: str) -> list[LLMCallRecord]:
        """A case's calls, oldest first."""
        query = (
            select(LLMCallRow)
            .where(LLMCallRow.case_id == case_id)
            .order_by(LLMCallRow.at, LLMCallRow.id)
        )
        async with self._sessions() as session:
            rows = list(await session.scalars(query))
        return [
            LLMCallRecord(
                case_id=row.case_id,
                model=row.model,
                template=row.template,
                template_hash=row.template_hash,
                latency_ms=row.latency_ms,
                prompt_tokens=row.prompt_tokens,
                completion_tokens=row.completion_tokens,
                cost_usd=row.cost_usd,
                outcome=LLMCallOutcome(row.outcome),
                error=row.error,
                at=row.at,
            )
            for row in rows
        ]

    async def for_case(self, case_id: str) -> LLMSpend:
        """What a case's calls cost (``domain.budget.SpendLedger``)."""
        return (await self.for_cases([case_id])).get(case_id, LLMSpend())

    async def for_cases(self, case_ids: Sequence[str]) -> dict[str, LLMSpend]:
        """What each case's calls cost, in one query (cases without calls are left out)."""
        if not case_ids:
            return {}
        query = _sums(LLMCallRow.case_id).where(LLMCallRow.case_id.in_(list(case_ids)))
        query = query.group_by(LLMCallRow.case_id)
        async with self._sessions() as session:
            rows = (await session.execute(query)).all()
        return {row[0]: _spend(row[1:]) for row in rows}

    async def for_team(self, team_id: str, *, since: datetime, until: datetime) -> LLMSpend:
        """What a workspace's calls cost in ``[since, until)``.

        A call belongs to the workspace of its case; calls of no case (a knowledge-base answer)
        count too, since one installation serves one workspace.
        """
        query = (
            _sums()
            .outerjoin(CaseRow, CaseRow.case_id == LLMCallRow.case_id)
            .where(
                LLMCallRow.at >= since,
                LLMCallRow.at < until,
                or_(LLMCallRow.case_id.is_(None), CaseRow.team_id == team_id),
            )
        )
        async with self._sessions() as session:
            row = (await session.execute(query)).one()
        return _spend(tuple(row))

    async def team_of(self, case_id: str) -> str | None:
        """The workspace of a case (``bot.llm.budget.CaseTeams``)."""
        async with self._sessions() as session:
            found = await session.scalar(select(CaseRow.team_id).where(CaseRow.case_id == case_id))
        return found


def _sums(*keys: InstrumentedAttribute[Any]) -> Select[Any]:
    tokens = func.coalesce(LLMCallRow.prompt_tokens, 0) + func.coalesce(
        LLMCallRow.completion_tokens, 0
    )
    return select(
        *keys,
        func.count(LLMCallRow.id),
        func.coalesce(func.sum(tokens), 0),
        func.sum(LLMCallRow.cost_usd),
        func.count(LLMCallRow.id) - func.count(LLMCallRow.cost_usd),
    )


def _spend(values: Sequence[Any]) -> LLMSpend:
    calls, tokens, cost, unpriced = values
    return LLMSpend(
        calls=int(calls or 0),
        tokens=int(tokens or 0),
        cost_usd=float(cost) if cost is not None else None,
        unpriced_calls=int(unpriced or 0),
    )
