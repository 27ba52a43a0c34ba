"""Whether a finished case's root cause was right, who stated it, and the calibration summary."""

from __future__ import annotations

from datetime import timedelta

import pytest

from domain.case import Case
from domain.investigation.conclusions import RootCauseConclusion
from domain.investigation.hypotheses import HypothesisStatus
from domain.lifecycle.confirmations import SolutionVerifiedPayload, StatusChangePayload
from domain.lifecycle.proposals import propose
from domain.lifecycle.status import CaseStatus, ClosureReason
from domain.llm import LLMCallOutcome, LLMCallRecord
from domain.outcomes import (
    MIN_POINTS,
    ConclusionFeedback,
    Outcome,
    Rating,
    Verdict,
    conclusion_id,
    grade,
    id_of,
    judge,
    model_of,
    summarize,
)
from tests.unit.domain.builders import (
    NOW,
    add_hypothesis,
    add_solution,
    answer_yes,
    investigating_case,
    later,
)

ROOT_CAUSE = "Connection pool exhausted by leaked connections in the payments worker"


def concluded(confidence: float = 0.8, *, validated: HypothesisStatus | None = None) -> Case:
    """An investigating case with a stated root cause (validating a hypothesis, if given)."""
    case = investigating_case()
    hypothesis = add_hypothesis(case, status=validated) if validated else None
    case.root_cause_conclusion = RootCauseConclusion(
        root_cause=ROOT_CAUSE,
        confidence_score=confidence,
        mechanism="every request waits for a pooled connection that never comes back",
        validated_hypothesis_id=hypothesis.hypothesis_id if hypothesis else None,
        determined_at=later(5),
    )
    return case


def resolved_by_saying(case: Case, summary: str) -> Case:
    """A person resolves the case, describing the fix (no solution was verified)."""
    payload = StatusChangePayload(to_status=CaseStatus.RESOLVED, resolution_summary=summary)
    answer_yes(case, propose(case, payload, now=NOW))
    assert case.status is CaseStatus.RESOLVED
    return case


def resolved_by_verifying(case: Case) -> Case:
    """A person verifies the proposed fix, which resolves the case."""
    solution = add_solution(case, title="Raise the pool size")
    answer_yes(
        case, propose(case, SolutionVerifiedPayload(solution_id=solution.solution_id), now=NOW)
    )
    assert case.status is CaseStatus.RESOLVED
    return case


def rated(case: Case, *ratings: Rating, conclusion: str | None = None) -> list[ConclusionFeedback]:
    rc = case.root_cause_conclusion
    assert rc is not None
    return [
        ConclusionFeedback(
            team_id=case.team_id,
            case_id=case.case_id,
            conclusion_id=conclusion or id_of(rc),
            user_id=f"W{i}",
            rating=value,
            confidence=rc.confidence_score,
            at=NOW,
        )
        for i, value in enumerate(ratings)
    ]


def test_the_same_statement_at_the_same_confidence_has_the_same_id() -> None:
    assert conclusion_id(ROOT_CAUSE, 0.8) == conclusion_id(f" {ROOT_CAUSE}\n", 0.8)
    assert conclusion_id(ROOT_CAUSE, 0.8) != conclusion_id(ROOT_CAUSE, 0.7)
    assert conclusion_id(ROOT_CAUSE, 0.8).startswith("rc_")


def test_a_case_closed_without_a_fix_has_no_outcome() -> None:
    case = concluded()
    payload = StatusChangePayload(to_status=CaseStatus.CLOSED, closure_reason=ClosureReason.OTHER)
    answer_yes(case, propose(case, payload, now=NOW))

    assert judge(case, rated(case, Rating.UP))[0] is Verdict.NO_OUTCOME


def test_a_resolved_case_without_a_root_cause_has_no_outcome() -> None:
    case = resolved_by_saying(investigating_case(), "restarted the pool")

    verdict, reason = judge(case, [])

    assert verdict is Verdict.NO_OUTCOME
    assert reason == "resolved with no root cause stated"


def test_a_thumbs_down_makes_it_wrong_even_beside_a_thumbs_up() -> None:
    case = resolved_by_verifying(concluded(validated=HypothesisStatus.VALIDATED))

    assert judge(case, rated(case, Rating.UP, Rating.DOWN)) == (
        Verdict.WRONG,
        "a person gave it 👎",
    )


def test_a_thumbs_up_alone_makes_it_right() -> None:
    case = resolved_by_verifying(concluded())

    assert judge(case, rated(case, Rating.UP))[0] is Verdict.RIGHT


def test_ratings_of_an_earlier_root_cause_do_not_count() -> None:
    case = resolved_by_verifying(concluded())
    earlier = conclusion_id("DNS is down", 0.4)

    assert judge(case, rated(case, Rating.DOWN, conclusion=earlier))[0] is Verdict.UNKNOWN


def test_a_refuted_hypothesis_behind_the_root_cause_makes_it_wrong() -> None:
    case = resolved_by_verifying(concluded(validated=HypothesisStatus.REFUTED))

    assert judge(case, rated(case, Rating.UP))[0] is Verdict.WRONG


@pytest.mark.parametrize(
    ("summary", "expected"),
    [
        ("Raised the connection pool limit and fixed the leak", Verdict.RIGHT),
        ("Restarted the payments worker", Verdict.RIGHT),
        ("Rolled back the DNS change", Verdict.WRONG),
        ("Restarted the service, error fixed", Verdict.WRONG),
    ],
)
def test_a_described_fix_agrees_when_it_shares_a_distinctive_word_with_the_root_cause(
    summary: str, expected: Verdict
) -> None:
    case = resolved_by_saying(concluded(), summary)

    assert judge(case, [])[0] is expected


def test_a_verified_fix_confirms_a_root_cause_whose_hypothesis_stands_validated() -> None:
    case = resolved_by_verifying(concluded(validated=HypothesisStatus.VALIDATED))

    assert judge(case, []) == (
        Verdict.RIGHT,
        "a fix was verified while its hypothesis stood validated",
    )


def test_a_verified_fix_alone_leaves_the_root_cause_unknown() -> None:
    case = resolved_by_verifying(concluded())

    assert judge(case, [])[0] is Verdict.UNKNOWN


def call(model: str, minutes: int, outcome: LLMCallOutcome = LLMCallOutcome.OK) -> LLMCallRecord:
    return LLMCallRecord(
        model=model,
        template="investigating",
        template_hash="h",
        latency_ms=1,
        outcome=outcome,
        at=later(minutes),
    )


def test_the_model_is_the_last_that_answered_before_the_root_cause_was_stated() -> None:
    rc = concluded().root_cause_conclusion
    assert rc is not None  # stated at later(5)
    records = [
        call("a", 1),
        call("b", 4),
        call("c", 5, LLMCallOutcome.TIMEOUT),
        call("d", 9),
    ]

    assert model_of(records, rc) == "b"
    assert model_of([call("d", 9)], rc) == "d"
    assert model_of([], rc) is None


def test_a_graded_outcome_carries_the_confidence_model_and_when_the_case_finished() -> None:
    case = resolved_by_verifying(concluded(0.65))
    now = later(30)

    outcome = grade(case, rated(case, Rating.UP), model="openai/gpt-4o-mini", now=now)

    assert outcome.verdict is Verdict.RIGHT
    assert (outcome.confidence, outcome.model) == (0.65, "openai/gpt-4o-mini")
    assert outcome.finished_at == case.closed_at
    assert outcome.recorded_at == now
    assert outcome.point == (0.65, True)


def outcome(verdict: Verdict, confidence: float | None, model: str | None = "m1") -> Outcome:
    return Outcome(
        team_id="T1",
        case_id="case",
        confidence=confidence,
        model=model,
        verdict=verdict,
        reason="",
        finished_at=NOW,
        recorded_at=NOW + timedelta(seconds=1),
    )


def test_the_summary_counts_hit_rates_per_confidence_bin_and_model() -> None:
    outcomes = [
        outcome(Verdict.RIGHT, 0.9),
        outcome(Verdict.WRONG, 0.85, "m2"),
        outcome(Verdict.RIGHT, 0.3, None),
        outcome(Verdict.UNKNOWN, 0.5),
        outcome(Verdict.NO_OUTCOME, None, None),
    ]

    summary = summarize(outcomes)

    assert (summary.considered, summary.graded, summary.enough) == (5, 3, False)
    assert summary.verdicts[Verdict.UNKNOWN] == summary.verdicts[Verdict.NO_OUTCOME] == 1
    assert [(b.count, b.accuracy) for b in summary.bins] == [
        (0, None),
        (1, 1.0),
        (0, None),
        (0, None),
        (2, 0.5),
    ]
    assert [(m.model, m.graded, m.right) for m in summary.models] == [
        ("m1", 1, 1),
        ("m2", 1, 0),
        ("unknown model", 1, 1),
    ]
    assert summary.brier is None
    assert summary.ece is None


def test_brier_and_ece_appear_once_there_are_enough_graded_outcomes() -> None:
    outcomes = [outcome(Verdict.RIGHT, 0.8)] * (MIN_POINTS - 2) + [outcome(Verdict.WRONG, 0.8)] * 2

    summary = summarize(outcomes)

    assert summary.enough
    assert summary.brier == pytest.approx((8 * 0.2**2 + 2 * 0.8**2) / 10)
    assert summary.ece == pytest.approx(0.0)
