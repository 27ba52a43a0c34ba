"""Turn recording: progress is milestones, evidence or a validated hypothesis."""

from __future__ import annotations

from domain.investigation.evidence import EvidenceCategory
from domain.investigation.hypotheses import HypothesisCategory, HypothesisStatus
from domain.investigation.turns import TurnOutcome
from domain.lifecycle.special_states import DegradedModeType
from domain.lifecycle.turn_tracking import TurnDelta, derive_outcome, record_turn, snapshot
from tests.unit.domain.builders import (
    NOW,
    add_evidence,
    add_hypothesis,
    add_solution,
    investigating_case,
    later,
    new_case,
)


def test_a_turn_that_completes_milestones_is_progress():
    case = investigating_case()
    before = snapshot(case)
    case.progress.symptom_verified = True
    case.progress.timeline_established = True
    turn = record_turn(case, before, now=NOW, user_summary="logs", agent_summary="verified")
    assert turn.milestones_completed == ["symptom_verified", "timeline_established"]
    assert turn.progress_made
    assert turn.outcome is TurnOutcome.MILESTONE_COMPLETED
    assert (turn.turn_number, case.current_turn) == (0, 1)
    assert case.turns_without_progress == 0
    assert case.turn_history == [turn]


def test_evidence_added_is_progress_and_reported():
    case = investigating_case()
    before = snapshot(case)
    evidence = add_evidence(case)
    turn = record_turn(case, before, now=NOW)
    assert turn.evidence_added == [evidence.evidence_id]
    assert turn.outcome is TurnOutcome.DATA_PROVIDED


def test_a_hypothesis_validated_this_turn_is_progress_but_not_one_validated_earlier():
    case = investigating_case()
    hypothesis = add_hypothesis(case)
    before = snapshot(case)
    hypothesis.status = HypothesisStatus.VALIDATED
    turn = record_turn(case, before, now=NOW)
    assert turn.hypotheses_validated == [hypothesis.hypothesis_id]
    assert turn.outcome is TurnOutcome.HYPOTHESIS_TESTED
    again = record_turn(case, snapshot(case), now=later())
    assert not again.progress_made
    assert case.turns_without_progress == 1


def test_generated_hypotheses_and_proposed_solutions_are_recorded_but_are_not_progress():
    case = investigating_case()
    before = snapshot(case)
    hypothesis = add_hypothesis(case)
    solution = add_solution(case)
    case.progress.solution_proposed = False
    turn = record_turn(
        case, before, now=NOW, outcome=TurnOutcome.DATA_REQUESTED, actions=["asked for logs"]
    )
    assert turn.hypotheses_generated == [hypothesis.hypothesis_id]
    assert turn.solutions_proposed == [solution.solution_id]
    assert not turn.progress_made
    assert turn.outcome is TurnOutcome.DATA_REQUESTED
    assert turn.actions_taken == ["asked for logs"]


def test_three_turns_without_progress_enter_degraded_mode_and_progress_leaves_it():
    case = investigating_case()
    for minute in range(2):
        record_turn(case, snapshot(case), now=later(minute))
    assert case.degraded_mode is None
    record_turn(case, snapshot(case), now=later(3))
    assert case.turns_without_progress == 3
    assert case.degraded_mode is not None
    assert case.degraded_mode.mode_type is DegradedModeType.NO_PROGRESS
    assert case.degraded_mode.is_active
    assert "3 turns" in case.degraded_mode.reason
    before = snapshot(case)
    add_evidence(case, category=EvidenceCategory.CAUSAL_EVIDENCE)
    record_turn(case, before, now=later(4))
    assert case.turns_without_progress == 0
    assert not case.degraded_mode.is_active
    assert case.degraded_mode.exited_at == later(4)


def test_consulting_turns_are_counted():
    case = new_case()
    record_turn(case, snapshot(case), now=NOW)
    assert case.consulting.consultation_turns == 1


def test_consulting_turns_without_progress_are_not_a_stall():
    case = new_case()
    for minute in range(4):
        record_turn(case, snapshot(case), now=later(minute))
    assert case.turns_without_progress == 0
    assert case.degraded_mode is None


def test_outcome_derivation_when_the_model_gave_none():
    assert derive_outcome(TurnDelta()) is TurnOutcome.CONVERSATION
    assert derive_outcome(TurnDelta(evidence_added=["ev"])) is TurnOutcome.DATA_PROVIDED


def test_category_used_for_anchoring_is_kept_on_hypotheses():
    case = investigating_case()
    assert (
        add_hypothesis(case, category=HypothesisCategory.NETWORK).category
        is HypothesisCategory.NETWORK
    )
