"""The runner: bounded parallel scenarios, the optional judge, and failures graded, not fatal."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import TypeVar

from pydantic import BaseModel

from domain.errors import DomainError
from domain.llm import ChatMessage, MemoryCallRecorder, ModelTier
from domain.scoring.judge import current_criteria
from evals.runner import RunOptions, run_suite
from evals.scenario import Scenario, load_scenarios
from evals.scripted.investigators import ScriptedInvestigator, Style

ReplyT = TypeVar("ReplyT", bound=BaseModel)
SCENARIOS = load_scenarios(only=["db-pool-cut", "k8s-oom-kill", "maintenance-blip"])


class Counting(ScriptedInvestigator):
    """A competent investigator that counts how many cases are talking to it at once."""

    running = 0
    most = 0

    async def structured(  # type: ignore[override]
        self, *, schema: type[ReplyT], **kwargs: object
    ) -> ReplyT:
        Counting.running += 1
        Counting.most = max(Counting.most, Counting.running)
        await asyncio.sleep(0.01)
        try:
            return await super().structured(schema=schema, **kwargs)  # type: ignore[arg-type]
        finally:
            Counting.running -= 1


class Judge:
    """A judge model that grades every case 77 and remembers what it was asked."""

    enabled = True

    def __init__(self) -> None:
        self.asked: list[tuple[str, str]] = []

    async def structured(self, **kwargs: object) -> BaseModel:
        raise AssertionError("the judge only writes text")

    async def text(
        self,
        *,
        tier: ModelTier,
        messages: Sequence[ChatMessage],
        template: str,
        template_hash: str,
        case_id: str | None = None,
    ) -> str:
        self.asked.append((template, template_hash))
        return "Logical flow 20/25, consistency 20/25.\n77"


class Broken(ScriptedInvestigator):
    """An investigator whose port fails in a way the engine does not catch."""

    async def structured(self, **kwargs: object) -> BaseModel:  # type: ignore[override]
        raise DomainError("the case store refused the change")


async def test_no_more_scenarios_run_at_once_than_allowed() -> None:
    recorder = MemoryCallRecorder()

    def llm_for(scenario: Scenario) -> Counting:
        return Counting(scenario, Style.COMPETENT, recorder)

    results = await run_suite(SCENARIOS, llm_for, options=RunOptions(concurrency=2))
    assert [r.scenario_id for r in results] == [s.id for s in SCENARIOS]
    assert Counting.most == 2


async def test_the_judge_scores_each_finished_case_with_the_current_criteria() -> None:
    recorder, judge = MemoryCallRecorder(), Judge()

    def llm_for(scenario: Scenario) -> ScriptedInvestigator:
        return ScriptedInvestigator(scenario, Style.COMPETENT, recorder)

    results = await run_suite(SCENARIOS, llm_for, options=RunOptions(judge=judge))
    assert [r.judge.total if r.judge else None for r in results] == [77, 77, 77]
    assert {h for _, h in judge.asked} == {current_criteria().hash}
    assert {t for t, _ in judge.asked} == {"judge_score"}


async def test_each_case_gets_only_its_own_call_records() -> None:
    recorder = MemoryCallRecorder()

    def llm_for(scenario: Scenario) -> ScriptedInvestigator:
        return ScriptedInvestigator(scenario, Style.COMPETENT, recorder)

    results = await run_suite(SCENARIOS, llm_for, records=lambda: recorder.records)
    assert sum(r.usage.calls for r in results) == len(recorder.records)
    # a stated root cause costs one more call, its second look; nothing is wrong in the blip
    calls = {r.scenario_id: r.usage.calls for r in results}
    assert calls == {"db-pool-cut": 5, "k8s-oom-kill": 5, "maintenance-blip": 4}


async def test_a_scenario_the_engine_cannot_finish_is_graded_with_its_error() -> None:
    def llm_for(scenario: Scenario) -> Broken:
        return Broken(scenario, Style.COMPETENT, MemoryCallRecorder())

    (result,) = await run_suite(SCENARIOS[:1], llm_for)
    assert result.error == "DomainError: the case store refused the change"
    assert not result.found
