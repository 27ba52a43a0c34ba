"""LLM call records: what every call cost and how it ended, kept per case."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from domain.llm import LLMCallOutcome, LLMCallRecord
from storage.db import writing
from storage.schema.tables import LLMCallRow


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
