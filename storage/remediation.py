"""Remediation strategies: proposed in a case thread, decided once (a conditional update)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from domain.errors import NotFoundError
from domain.workflows.catalog import RiskLevel
from domain.workflows.remediation import ExecutionResult, RemediationStrategy, StrategyStatus
from storage.database.engine import affected, writing
from storage.schema.tables import RemediationRow

PROPOSED = StrategyStatus.PROPOSED.value


class SqlRemediationRepository:
    """Strategies in SQL; two people clicking at once cannot both decide one strategy."""

    def __init__(self, sessions: async_sessionmaker[AsyncSession]) -> None:
        self._sessions = sessions

    async def add_all(self, strategies: list[RemediationStrategy]) -> None:
        """Store newly proposed strategies in one transaction."""
        async with writing(self._sessions) as session:
            session.add_all(_row(s) for s in strategies)

    async def get(self, strategy_id: str) -> RemediationStrategy:
        """A strategy, or NotFoundError."""
        async with self._sessions() as session:
            row = await session.get(RemediationRow, strategy_id)
        if row is None:
            raise NotFoundError(f"no remediation strategy {strategy_id}")
        return _strategy(row)

    async def list_for_case(self, case_id: str) -> list[RemediationStrategy]:
        """A case's strategies, oldest analysis first, then by rank."""
        query = (
            select(RemediationRow)
            .where(RemediationRow.case_id == case_id)
            .order_by(RemediationRow.proposed_at, RemediationRow.rank)
        )
        async with self._sessions() as session:
            return [_strategy(row) for row in await session.scalars(query)]

    async def decide(
        self, strategy_id: str, *, status: StrategyStatus, by: str, at: datetime
    ) -> bool:
        """Approve or reject, only while proposed; False when someone decided first."""
        statement = (
            update(RemediationRow)
            .where(RemediationRow.strategy_id == strategy_id, RemediationRow.status == PROPOSED)
            .values(status=status.value, decided_by=by, decided_at=at)
        )
        async with writing(self._sessions) as session:
            return await affected(session, statement) == 1

    async def supersede_others(
        self, batch_id: str, *, keep: str, at: datetime
    ) -> list[RemediationStrategy]:
        """Withdraw the batch's other proposed strategies; return them as they now stand."""
        query = select(RemediationRow).where(
            RemediationRow.batch_id == batch_id,
            RemediationRow.status == PROPOSED,
            RemediationRow.strategy_id != keep,
        )
        async with writing(self._sessions) as session:
            rows = list(await session.scalars(query.with_for_update()))
            for row in rows:
                row.status = StrategyStatus.SUPERSEDED.value
                row.decided_at = at
            return [_strategy(row) for row in rows]

    async def record_execution(
        self, strategy_id: str, *, status: StrategyStatus, result: ExecutionResult
    ) -> None:
        """Store the executor's report and the strategy's resulting status."""
        await self._set(strategy_id, status=status.value, execution=result.model_dump(mode="json"))

    async def _set(self, strategy_id: str, **values: Any) -> None:
        statement = (
            update(RemediationRow).where(RemediationRow.strategy_id == strategy_id).values(**values)
        )
        async with writing(self._sessions) as session:
            if await affected(session, statement) != 1:
                raise NotFoundError(f"no remediation strategy {strategy_id}")


def _row(strategy: RemediationStrategy) -> RemediationRow:
    return RemediationRow(
        strategy_id=strategy.strategy_id,
        case_id=strategy.case_id,
        team_id=strategy.team_id,
        batch_id=strategy.batch_id,
        rank=strategy.rank,
        workflow_id=strategy.workflow_id,
        version=strategy.version,
        title=strategy.title,
        confidence=strategy.confidence,
        estimated_risk=strategy.estimated_risk.value,
        rationale=strategy.rationale,
        parameters=dict(strategy.parameters),
        status=strategy.status.value,
        proposed_at=strategy.proposed_at,
        decided_by=strategy.decided_by,
        decided_at=strategy.decided_at,
        execution=strategy.execution.model_dump(mode="json") if strategy.execution else None,
    )


def _strategy(row: RemediationRow) -> RemediationStrategy:
    return RemediationStrategy(
        strategy_id=row.strategy_id,
        case_id=row.case_id,
        team_id=row.team_id,
        batch_id=row.batch_id,
        rank=row.rank,
        workflow_id=row.workflow_id,
        version=row.version,
        title=row.title,
        confidence=row.confidence,
        estimated_risk=RiskLevel(row.estimated_risk),
        rationale=row.rationale,
        parameters=dict(row.parameters),
        status=StrategyStatus(row.status),
        proposed_at=row.proposed_at,
        decided_by=row.decided_by,
        decided_at=row.decided_at,
        execution=ExecutionResult.model_validate(row.execution) if row.execution else None,
    )
