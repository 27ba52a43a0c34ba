"""Scoring on the real databases: the new columns, and two requests at once make one scoring."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from sqlalchemy.ext.asyncio import AsyncEngine

from domain.case import Case
from domain.ports import ScoreRepository
from domain.scoring.lifecycle import new_scoring
from domain.scoring.model import (
    CaseFacts,
    ConfidenceCheck,
    ScoringPhase,
    ScoringStatus,
    SessionScore,
)
from domain.scoring.requests import RequestOutcome, RequestResult, request_scoring
from storage import Repositories, SqlScoreRepository
from storage.database.engine import create_engine, make_session_factory
from tests.fakes.clock import START
from tests.integration.storage.builders import full_case

HASH = "b" * 64
FACTS = CaseFacts(
    requests_made=3,
    requests_answered=2,
    requests_blocked=1,
    unsafe_commands=0,
    evidence_count=2,
    root_cause_stated=True,
    cited_evidence=1,
    root_cause_confidence=0.75,
    confidence_check=ConfidenceCheck.CALIBRATED,
    turns_to_root_cause=4,
    total_turns=6,
)


async def test_a_completed_scoring_keeps_its_categories_facts_phase_and_message(
    repos: Repositories,
) -> None:
    case = await repos.cases.add(full_case())
    score = await repos.scores.create(
        new_scoring(case_id=case.case_id, by="U1", criteria_hash=HASH, now=START)
    )
    done = score.model_copy(
        update={
            "status": ScoringStatus.COMPLETED,
            "total_score": 61,
            "score_analysis": "Adequate, with gaps.",
            "missing_tools_analysis": "1. Pool metrics.",
            "completed_at_us": score.started_at_us + 1,
            "logical_flow_score": 15,
            "consistency_score": 17,
            "tool_relevance_score": 12,
            "synthesis_quality_score": 17,
            "facts": FACTS,
            "phase": ScoringPhase.MISSING_TOOLS,
            "message_channel": "C1",
            "message_ts": "1700000000.000900",
        }
    )

    await repos.scores.update(done)

    assert await repos.scores.get(score.score_id) == done
    assert await repos.scores.list_recent(case.team_id) == [done]


@dataclass
class LooksTogether:
    """A process's score repository whose first look waits until the other process looked too."""

    inner: ScoreRepository
    barrier: asyncio.Barrier
    looked: bool = False

    async def active_for_case(self, case_id: str) -> SessionScore | None:
        return await self.inner.active_for_case(case_id)

    async def latest_for_case(self, case_id: str) -> SessionScore | None:
        found = await self.inner.latest_for_case(case_id)
        if not self.looked:
            self.looked = True
            await self.barrier.wait()
        return found

    async def create(self, score: SessionScore) -> SessionScore:
        return await self.inner.create(score)


async def race(url: str, case: Case, *, force: bool) -> list[RequestResult]:
    """Two processes (two engines) request a scoring of ``case`` at the same moment."""
    engines = [create_engine(url), create_engine(url)]
    barrier = asyncio.Barrier(len(engines))

    async def request(engine: AsyncEngine) -> RequestResult:
        scores = LooksTogether(SqlScoreRepository(make_session_factory(engine)), barrier)
        return await request_scoring(
            scores,  # type: ignore[arg-type]
            case=case,
            by=f"U_{id(engine)}",
            force=force,
            now=START,
            criteria_hash=HASH,
        )

    try:
        return list(await asyncio.gather(*(request(e) for e in engines)))
    finally:
        for engine in engines:
            await engine.dispose()


async def test_two_requests_at_once_from_two_processes_make_one_scoring(
    repos: Repositories, migrated_url: str
) -> None:
    case = await repos.cases.add(full_case())

    results = await race(migrated_url, case, force=False)

    outcomes = sorted(r.outcome for r in results)
    assert outcomes == [RequestOutcome.EXISTING, RequestOutcome.STARTED]
    assert results[0].score.score_id == results[1].score.score_id
    counts = await repos.scores.count_by_status(case.case_id)
    assert counts[ScoringStatus.PENDING] == 1
    assert sum(counts.values()) == 1


async def test_a_forced_request_racing_another_answers_that_one_is_running(
    repos: Repositories, migrated_url: str
) -> None:
    case = await repos.cases.add(full_case())

    results = await race(migrated_url, case, force=True)

    assert sorted(r.outcome for r in results) == [RequestOutcome.CONFLICT, RequestOutcome.STARTED]
    assert sum((await repos.scores.count_by_status(case.case_id)).values()) == 1
