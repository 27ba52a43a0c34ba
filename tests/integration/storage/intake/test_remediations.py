"""Remediation strategies: stored with their analysis, decided once, executions recorded."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

import pytest

from domain.errors import NotFoundError
from domain.workflows.catalog import RiskLevel
from domain.workflows.remediation import (
    ExecutionResult,
    ExecutionStatus,
    RemediationStrategy,
    StrategyStatus,
)
from storage import Repositories
from tests.integration.storage.builders import new_case

T0 = datetime(2026, 11, 21, 14, 20, tzinfo=UTC)


async def stored(repos: Repositories, count: int = 3) -> list[RemediationStrategy]:
    case = await repos.cases.add(new_case())
    strategies = [
        RemediationStrategy(
            case_id=case.case_id,
            team_id=case.team_id,
            batch_id="rca_000000000001",
            rank=rank,
            workflow_id=f"workflow-{rank}",
            version="1.0.0",
            title=f"Workflow {rank}",
            confidence=0.9 - rank / 10,
            estimated_risk=RiskLevel.LOW,
            rationale="because",
            parameters={"TARGET_NAMESPACE": "payments", "REPLICAS": rank, "DRY_RUN": False},
            proposed_at=T0,
        )
        for rank in range(1, count + 1)
    ]
    await repos.remediations.add_all(strategies)
    return strategies


async def test_strategies_round_trip_with_typed_parameters(repos: Repositories) -> None:
    strategies = await stored(repos)

    found = await repos.remediations.list_for_case(strategies[0].case_id)

    assert found == strategies
    assert found[1].parameters == {"TARGET_NAMESPACE": "payments", "REPLICAS": 2, "DRY_RUN": False}


async def test_a_strategy_is_decided_once_even_by_two_clicks_at_once(repos: Repositories) -> None:
    strategy = (await stored(repos))[0]

    wins = await asyncio.gather(
        repos.remediations.decide(
            strategy.strategy_id, status=StrategyStatus.APPROVED, by="W1", at=T0
        ),
        repos.remediations.decide(
            strategy.strategy_id, status=StrategyStatus.REJECTED, by="W2", at=T0
        ),
    )

    assert sorted(wins) == [False, True]
    decided = await repos.remediations.get(strategy.strategy_id)
    assert decided.decided_by == ("W1" if wins[0] else "W2")
    assert decided.decided_at == T0


async def test_approving_one_withdraws_the_others_of_the_analysis(repos: Repositories) -> None:
    strategies = await stored(repos)
    approved = strategies[1]
    await repos.remediations.decide(
        strategies[2].strategy_id, status=StrategyStatus.REJECTED, by="W1", at=T0
    )

    withdrawn = await repos.remediations.supersede_others(
        approved.batch_id, keep=approved.strategy_id, at=T0
    )

    assert [s.strategy_id for s in withdrawn] == [strategies[0].strategy_id]
    assert withdrawn[0].status is StrategyStatus.SUPERSEDED
    statuses = [s.status for s in await repos.remediations.list_for_case(approved.case_id)]
    assert statuses == [StrategyStatus.SUPERSEDED, StrategyStatus.PROPOSED, StrategyStatus.REJECTED]


async def test_the_execution_and_the_message_ref_are_recorded(repos: Repositories) -> None:
    strategy = (await stored(repos, 1))[0]
    result = ExecutionResult(
        executor="webhook",
        status=ExecutionStatus.ACCEPTED,
        summary="it answered HTTP 202",
        steps=["kubectl get pods"],
        http_status=202,
        response_excerpt="{}",
        at=T0,
    )

    await repos.remediations.record_execution(
        strategy.strategy_id, status=StrategyStatus.EXECUTED, result=result
    )

    found = await repos.remediations.get(strategy.strategy_id)
    assert found.status is StrategyStatus.EXECUTED
    assert found.execution == result


async def test_an_unknown_strategy_is_not_found(repos: Repositories) -> None:
    with pytest.raises(NotFoundError):
        await repos.remediations.get("rem_missing")
