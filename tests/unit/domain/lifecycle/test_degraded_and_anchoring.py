"""Degraded mode triggers and the two anchoring detectors."""

from __future__ import annotations

from domain.investigation.evidence import EvidenceCategory
from domain.investigation.evidence_requests import EvidenceStatus
from domain.investigation.hypotheses import HypothesisCategory, HypothesisStatus
from domain.investigation.turns import TurnOutcome, TurnProgress
from domain.lifecycle.anchoring import (
    anchoring_warnings,
    detect_category_anchoring,
    detect_evidence_anchoring,
)
from domain.lifecycle.degraded import should_enter_degraded_mode, update_degraded_mode
from domain.lifecycle.special_states import DegradedModeType
from domain.lifecycle.status import CaseStatus
from tests.unit.domain.builders import (
    NOW,
    add_evidence,
    add_hypothesis,
    add_request,
    investigating_case,
    later,
)


def test_all_hypotheses_inconclusive_is_a_deadlock():
    case = investigating_case()
    assert should_enter_degraded_mode(case) is None
    add_hypothesis(case, status=HypothesisStatus.INCONCLUSIVE)
    add_hypothesis(case, status=HypothesisStatus.INCONCLUSIVE, category=HypothesisCategory.CODE)
    assert should_enter_degraded_mode(case) is DegradedModeType.HYPOTHESIS_DEADLOCK
    mode = update_degraded_mode(case, now=NOW)
    assert mode is not None
    assert "2 hypotheses" in mode.reason
    assert not mode.escalation_recommended


def test_one_open_hypothesis_is_not_a_deadlock():
    case = investigating_case()
    add_hypothesis(case, status=HypothesisStatus.INCONCLUSIVE)
    add_hypothesis(case)
    assert should_enter_degraded_mode(case) is None


def _block(case, label):
    request = add_request(case, label=label)
    request.status = EvidenceStatus.BLOCKED
    return request


def test_three_blocked_critical_requests_degrade_and_recommend_escalation():
    case = investigating_case()
    _block(case, "Production logs")
    _block(case, "Deploy history")
    assert should_enter_degraded_mode(case) is None
    _block(case, "Metrics")
    mode = update_degraded_mode(case, now=NOW)
    assert mode is not None
    assert mode.mode_type is DegradedModeType.LIMITED_DATA
    assert mode.escalation_recommended
    assert "Production logs, Deploy history, Metrics" in mode.reason


def test_blocked_evidence_while_already_degraded_adds_the_escalation_recommendation():
    case = investigating_case()
    case.turns_without_progress = 3
    mode = update_degraded_mode(case, now=NOW)
    assert mode is not None
    assert not mode.escalation_recommended
    case.turns_without_progress = 0
    for label in ("a", "b", "c"):
        _block(case, label)
    update_degraded_mode(case, now=later())
    assert mode.escalation_recommended
    assert mode.is_active


def test_a_stall_with_blocked_critical_evidence_recommends_escalation_at_once():
    case = investigating_case()
    case.turns_without_progress = 3
    for label in ("a", "b", "c"):
        _block(case, label)
    mode = update_degraded_mode(case, now=NOW)
    assert mode is not None
    assert mode.mode_type is DegradedModeType.NO_PROGRESS
    assert mode.escalation_recommended


def test_no_trigger_and_no_mode_changes_nothing():
    case = investigating_case()
    assert update_degraded_mode(case, now=NOW) is None


def test_terminal_cases_are_not_degraded_further():
    case = investigating_case()
    case.turns_without_progress = 5
    case.status = CaseStatus.CLOSED
    assert update_degraded_mode(case, now=NOW) is None


def test_four_unproductive_hypotheses_in_one_category_is_anchoring():
    case = investigating_case()
    for status in (HypothesisStatus.REFUTED,) * 3:
        add_hypothesis(case, status=status)
    add_hypothesis(case, status=HypothesisStatus.VALIDATED)
    assert detect_category_anchoring(list(case.hypotheses.values())) is None
    add_hypothesis(case, status=HypothesisStatus.INCONCLUSIVE)
    warning = detect_category_anchoring(list(case.hypotheses.values()))
    assert warning is not None
    assert "4 'config'" in warning


def _turn(number, evidence_ids):
    return TurnProgress(
        turn_number=number,
        evidence_added=evidence_ids,
        progress_made=True,
        outcome=TurnOutcome.DATA_PROVIDED,
    )


def test_four_symptom_evidence_in_the_last_four_turns_is_anchoring():
    case = investigating_case()
    ids = [add_evidence(case).evidence_id for _ in range(4)]
    case.turn_history = [_turn(0, ["old"]), *(_turn(i + 1, [ev]) for i, ev in enumerate(ids))]
    assert detect_evidence_anchoring(case.turn_history, case.evidence) is not None
    assert len(anchoring_warnings(case)) == 1


def test_mixed_or_too_little_evidence_is_not_anchoring():
    case = investigating_case()
    ids = [add_evidence(case).evidence_id for _ in range(3)]
    case.turn_history = [_turn(i, [ev]) for i, ev in enumerate(ids)]
    assert detect_evidence_anchoring(case.turn_history, case.evidence) is None
    causal = add_evidence(case, category=EvidenceCategory.CAUSAL_EVIDENCE).evidence_id
    case.turn_history.append(_turn(4, [causal]))
    assert detect_evidence_anchoring(case.turn_history, case.evidence) is None
    assert anchoring_warnings(case) == []
