"""The scoring job: facts, two judge turns with retries, and a lifecycle others may end first."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

import pytest

from domain.budget import Breach, BudgetScope, LLMBudgetExceededError
from domain.llm import LLMRateLimitedError, LLMTimeoutError, LLMUnavailableError, ModelTier
from domain.retry import RetryPolicy
from domain.scoring.job import NO_JUDGE, ScoringJob
from domain.scoring.judge import current_criteria
from domain.scoring.lifecycle import ORPHANED_REASON, STOPPED_REASON, new_scoring, to_us
from domain.scoring.model import Category, ScoringStatus, SessionScore
from tests.fakes.clock import START, FakeClock
from tests.fakes.models.gateway import RecordedSleeps
from tests.fakes.models.llm import ScriptedLLM
from tests.fakes.scores import FixedMaterial, MemoryScores, RecordingObserver
from tests.unit.domain.scoring.material import material

EVALUATION = """However, the investigation never asked for pool metrics.
Logical Flow: 15/25
Consistency: 14/25
Tool Relevance: 10/25
Synthesis Quality: 13/25
52"""
MISSING = "1. Connection pool metrics: would have shown the exhaustion directly."


@dataclass
class Kit:
    job: ScoringJob
    llm: ScriptedLLM
    scores: MemoryScores
    observer: RecordingObserver
    sleeps: RecordedSleeps
    score: SessionScore
    clock: FakeClock = field(default_factory=FakeClock)


async def kit(*script: object, enabled: bool = True, llm: ScriptedLLM | None = None) -> Kit:
    source = material()
    scores = MemoryScores()
    score = await scores.create(
        new_scoring(
            case_id=source.case.case_id,
            by="U_ASKER",
            criteria_hash=current_criteria().hash,
            now=START,
        )
    )
    llm = llm or ScriptedLLM(list(script), enabled=enabled)
    observer = RecordingObserver()
    sleeps = RecordedSleeps()
    clock = FakeClock()
    job = ScoringJob(
        llm=llm,
        scores=scores,
        material=FixedMaterial(source.case, source.conversation, source.audit),
        observer=observer,
        clock=clock,
        sleep=sleeps,
    )
    return Kit(job, llm, scores, observer, sleeps, score, clock)


async def test_a_scoring_goes_through_both_phases_to_a_completed_score() -> None:
    k = await kit(EVALUATION, MISSING)

    done = await k.job.run(k.score.score_id)

    assert done.status is ScoringStatus.COMPLETED
    assert done.total_score == 52
    assert done.score_analysis is not None
    assert done.score_analysis.endswith("Synthesis Quality: 13/25")
    assert done.missing_tools_analysis == MISSING
    assert done.category_scores() == {
        Category.LOGICAL_FLOW: 15,
        Category.CONSISTENCY: 14,
        Category.TOOL_RELEVANCE: 10,
        Category.SYNTHESIS_QUALITY: 13,
    }
    assert done.facts is not None
    assert done.facts.requests_made == 1
    assert done.completed_at_us == to_us(START)
    assert await k.scores.get(done.score_id) == done
    assert k.observer.statuses == [
        (ScoringStatus.IN_PROGRESS, "evaluating_investigation"),
        (ScoringStatus.IN_PROGRESS, "identifying_missing_tools"),
        (ScoringStatus.COMPLETED, "identifying_missing_tools"),
    ]


async def test_the_judge_gets_two_turns_of_one_conversation_on_the_judge_model() -> None:
    k = await kit(EVALUATION, MISSING)

    await k.job.run(k.score.score_id)

    first, second = k.llm.calls
    assert {first.tier, second.tier} == {ModelTier.JUDGE}
    assert (first.template, second.template) == ("judge_score", "judge_missing_tools")
    assert first.template_hash == second.template_hash == current_criteria().hash
    assert second.messages[: len(first.messages)] == first.messages
    assert second.messages[len(first.messages)].content == EVALUATION


async def test_a_failed_call_is_retried_after_a_wait_and_can_still_succeed() -> None:
    k = await kit(LLMTimeoutError("slow"), "no score here", EVALUATION, MISSING)

    done = await k.job.run(k.score.score_id)

    assert done.status is ScoringStatus.COMPLETED
    assert k.sleeps.waits == [2.0, 4.0]


async def test_three_failures_fail_the_scoring_with_a_reason_and_no_exception_text() -> None:
    k = await kit(*(LLMRateLimitedError("HTTP 429 from secret-proxy.internal") for _ in range(3)))

    failed = await k.job.run(k.score.score_id)

    assert failed.status is ScoringStatus.FAILED
    assert failed.error_message == (
        "The model provider kept rate-limiting the judge "
        "(3 attempts, while evaluating the investigation)."
    )
    assert "secret-proxy" not in str(failed.model_dump())
    assert failed.total_score is None
    assert k.sleeps.waits == [2.0, 4.0]
    assert k.observer.statuses[-1] == (ScoringStatus.FAILED, "evaluating_investigation")


async def test_a_judge_that_never_ends_with_a_total_fails_the_scoring() -> None:
    k = await kit("No number.", "Still none\n", "Total 250")

    failed = await k.job.run(k.score.score_id)

    assert failed.error_message == (
        "The judge gave a total outside 0–100 (3 attempts, while evaluating the investigation)."
    )


async def test_a_failure_in_the_second_turn_keeps_no_partial_result() -> None:
    k = await kit(EVALUATION, LLMUnavailableError("x"), "   ", LLMUnavailableError("y"))

    failed = await k.job.run(k.score.score_id)

    assert failed.status is ScoringStatus.FAILED
    assert failed.error_message == (
        "The judge model could not be reached "
        "(3 attempts, while identifying the missing evidence and tools)."
    )
    assert (failed.total_score, failed.score_analysis) == (None, None)


async def test_without_a_model_the_scoring_fails_at_once() -> None:
    k = await kit(enabled=False)

    failed = await k.job.run(k.score.score_id)

    assert failed.error_message == NO_JUDGE
    assert k.llm.calls == []


async def test_a_finished_scoring_is_only_shown_again() -> None:
    k = await kit()
    await k.scores.fail_orphans(reason=ORPHANED_REASON, now_us=to_us(START))

    again = await k.job.run(k.score.score_id)

    assert again.error_message == ORPHANED_REASON
    assert k.observer.statuses == [(ScoringStatus.FAILED, None)]
    assert k.llm.calls == []


class OrphanedMidway(ScriptedLLM):
    """The start-up clean-up of another process fails the scoring while the judge works."""

    scores: MemoryScores | None = None

    async def text(self, **kwargs: object) -> str:  # type: ignore[override]
        assert self.scores is not None
        await self.scores.fail_orphans(reason=ORPHANED_REASON, now_us=1)
        return await super().text(**kwargs)  # type: ignore[arg-type]


async def test_a_scoring_failed_elsewhere_meanwhile_is_left_as_it_was() -> None:
    llm = OrphanedMidway([EVALUATION, MISSING])
    k = await kit(llm=llm)
    llm.scores = k.scores

    result = await k.job.run(k.score.score_id)

    assert result.status is ScoringStatus.FAILED
    assert result.error_message == ORPHANED_REASON
    assert (await k.scores.get(k.score.score_id)).error_message == ORPHANED_REASON
    assert k.observer.statuses[-1] == (ScoringStatus.FAILED, "evaluating_investigation")


@dataclass
class Hanging(ScriptedLLM):
    """A judge that never answers."""

    asked: asyncio.Event = field(default_factory=asyncio.Event)

    async def text(self, **kwargs: object) -> str:  # type: ignore[override]
        self.asked.set()
        await asyncio.Event().wait()
        raise AssertionError("unreachable")


async def test_a_scoring_cut_short_by_shutdown_is_marked_failed() -> None:
    llm = Hanging()
    k = await kit(llm=llm)
    task = asyncio.create_task(k.job.run(k.score.score_id))
    await llm.asked.wait()

    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task

    stored = await k.scores.get(k.score.score_id)
    assert (stored.status, stored.error_message) == (ScoringStatus.FAILED, STOPPED_REASON)
    assert k.observer.statuses[-1] == (ScoringStatus.FAILED, "evaluating_investigation")


def test_waits_double_from_the_first_delay() -> None:
    policy = RetryPolicy(attempts=4, first_delay_s=0.5)

    assert [policy.delay(n) for n in (1, 2, 3)] == [0.5, 1.0, 2.0]


async def test_a_budget_that_stops_the_judge_fails_the_scoring_at_once_saying_so() -> None:
    breach = Breach(scope=BudgetScope.CASE, limit="$1.00", spent="$1.10 spent")
    k = await kit(LLMBudgetExceededError(breach))

    failed = await k.job.run(k.score.score_id)

    assert failed.status is ScoringStatus.FAILED
    assert failed.error_message is not None
    assert failed.error_message.startswith("This case has reached its model budget of $1.00")
    assert k.sleeps.waits == []
