"""Refutation and solution confirmations: applied once, by a person."""

from __future__ import annotations

import pytest

from domain.errors import (
    PreconditionFailedError,
)
from domain.investigation.evidence import (
    CompletenessLevel,
    EvidenceClassification,
    EvidenceForm,
    EvidenceStance,
    EvidenceType,
    UserIntent,
)
from domain.investigation.hypotheses import HypothesisStatus, link_evidence
from domain.lifecycle.confirmations import (
    ConfirmationState,
    Decision,
    RefutationPayload,
    SolutionAppliedPayload,
    SolutionVerifiedPayload,
)
from domain.lifecycle.decisions import answer
from domain.lifecycle.proposals import propose
from domain.lifecycle.status import CaseStatus
from tests.unit.domain.builders import (
    NOW,
    OPENER,
    add_evidence,
    add_hypothesis,
    add_solution,
    investigating_case,
    later,
    triaged_case,
)
from tests.unit.domain.builders import answer_yes as _yes

# --- refutation --------------------------------------------------------------------


def _refuting_case():
    case = investigating_case()
    hypothesis = add_hypothesis(case)
    evidence = add_evidence(case)
    link_evidence(
        hypothesis,
        evidence_id=evidence.evidence_id,
        stance=EvidenceStance.STRONGLY_CONTRADICTS,
        reasoning="pool at 20%",
        completeness=0.9,
        now=NOW,
    )
    payload = RefutationPayload(
        hypothesis_ids=[hypothesis.hypothesis_id],
        evidence_id=evidence.evidence_id,
        explanation="pool fine",
    )
    return case, hypothesis, evidence, propose(case, payload, now=NOW)


def test_confirming_a_refutation_refutes_the_hypothesis_and_records_a_dead_end():
    case, hypothesis, _evidence, cf = _refuting_case()
    _yes(case, cf)
    assert hypothesis.hypothesis_id in case.hypotheses
    refuted = case.hypotheses[hypothesis.hypothesis_id]
    assert refuted.status is HypothesisStatus.REFUTED
    assert case.dead_ends[0].why_ruled_out == "pool fine"
    assert case.dead_ends[0].confidence_eliminated == 0.9


def test_refuting_an_already_refuted_hypothesis_adds_no_second_dead_end():
    case, hypothesis, evidence, _ = _refuting_case()
    case.hypotheses[hypothesis.hypothesis_id].status = HypothesisStatus.REFUTED
    payload = RefutationPayload(
        hypothesis_ids=[hypothesis.hypothesis_id], evidence_id=evidence.evidence_id
    )
    _yes(case, propose(case, payload, now=NOW))
    assert case.dead_ends == []


def test_refutation_without_a_link_uses_the_default_confidence():
    case = investigating_case()
    hypothesis, evidence = add_hypothesis(case), add_evidence(case)
    payload = RefutationPayload(
        hypothesis_ids=[hypothesis.hypothesis_id], evidence_id=evidence.evidence_id
    )
    _yes(case, propose(case, payload, now=NOW))
    assert case.dead_ends[0].confidence_eliminated == 0.8
    assert case.hypotheses[hypothesis.hypothesis_id].refuting_evidence == [evidence.evidence_id]


def test_disputing_a_refutation_marks_the_evidence_uncertain():
    case, hypothesis, evidence, cf = _refuting_case()
    _yes(case, cf, decision=Decision.NO)
    assert case.find_evidence(evidence.evidence_id).disputed
    assert case.hypotheses[hypothesis.hypothesis_id].status is HypothesisStatus.ACTIVE


def test_being_unsure_of_a_refutation_asks_to_reverify_the_data():
    case, hypothesis, evidence, cf = _refuting_case()
    _yes(case, cf, decision=Decision.UNSURE)
    request = case.evidence_requests[-1]
    assert request.metadata["reverifies_evidence_id"] == evidence.evidence_id
    assert case.hypotheses[hypothesis.hypothesis_id].status is HypothesisStatus.ACTIVE


def test_refutations_must_name_known_hypotheses_and_evidence():
    case = investigating_case()
    evidence = add_evidence(case)
    with pytest.raises(PreconditionFailedError, match="unknown hypotheses"):
        propose(
            case,
            RefutationPayload(hypothesis_ids=["hyp_x"], evidence_id=evidence.evidence_id),
            now=NOW,
        )
    hypothesis = add_hypothesis(case)
    with pytest.raises(PreconditionFailedError, match="no evidence"):
        propose(
            case,
            RefutationPayload(hypothesis_ids=[hypothesis.hypothesis_id], evidence_id="ev_x"),
            now=NOW,
        )


# --- solutions ---------------------------------------------------------------------


def test_applying_a_mitigation_completes_the_mitigation_milestone():
    case = investigating_case()
    solution = add_solution(case, mitigation=True)
    _yes(case, propose(case, SolutionAppliedPayload(solution_id=solution.solution_id), now=NOW))
    assert case.progress.mitigation_applied
    assert not case.progress.solution_applied
    assert solution.solution_id == case.solutions[0].solution_id
    assert case.solutions[0].applied_by == OPENER


def test_verifying_the_permanent_fix_resolves_the_case():
    case = investigating_case()
    solution = add_solution(case)
    result = _yes(
        case, propose(case, SolutionVerifiedPayload(solution_id=solution.solution_id), now=NOW)
    )
    assert case.status is CaseStatus.RESOLVED
    assert case.progress.solution_applied
    assert case.progress.solution_verified
    assert result.transitions[0].to_status is CaseStatus.RESOLVED


def test_verifying_a_mitigation_does_not_resolve_the_case():
    case = investigating_case()
    solution = add_solution(case, mitigation=True)
    _yes(case, propose(case, SolutionVerifiedPayload(solution_id=solution.solution_id), now=NOW))
    assert case.status is CaseStatus.INVESTIGATING
    assert case.solutions[0].verified_by == OPENER


def test_applying_twice_keeps_the_first_application():
    case = investigating_case()
    solution = add_solution(case)
    _yes(case, propose(case, SolutionAppliedPayload(solution_id=solution.solution_id), now=NOW))
    first = case.solutions[0].applied_at
    cf = propose(case, SolutionAppliedPayload(solution_id=solution.solution_id), now=NOW)
    answer(case, cf.confirmation_id, by=OPENER, decision=Decision.YES, now=later(9))
    assert case.solutions[0].applied_at == first


def test_solution_confirmations_need_a_known_solution_while_investigating():
    with pytest.raises(PreconditionFailedError, match="no solution"):
        propose(investigating_case(), SolutionAppliedPayload(solution_id="sol_x"), now=NOW)
    with pytest.raises(PreconditionFailedError, match="investigating"):
        propose(triaged_case(), SolutionAppliedPayload(solution_id="sol_x"), now=NOW)


def test_a_removed_solution_makes_the_answer_fail_cleanly():
    case = investigating_case()
    solution = add_solution(case)
    cf = propose(case, SolutionAppliedPayload(solution_id=solution.solution_id), now=NOW)
    case.solutions.clear()
    with pytest.raises(PreconditionFailedError):
        _yes(case, cf)
    assert case.find_confirmation(cf.confirmation_id).is_pending


def test_one_pending_question_per_solution():
    case = investigating_case()
    solution = add_solution(case)
    first = propose(case, SolutionAppliedPayload(solution_id=solution.solution_id), now=NOW)
    other = add_solution(case, title="Scale up")
    propose(case, SolutionAppliedPayload(solution_id=other.solution_id), now=NOW)
    assert first.is_pending
    propose(case, SolutionAppliedPayload(solution_id=solution.solution_id), now=NOW)
    assert first.state is ConfirmationState.SUPERSEDED


def test_disputing_classified_evidence_makes_it_neutral():
    case, _hypothesis, evidence, cf = _refuting_case()
    case.find_evidence(evidence.evidence_id).classification = EvidenceClassification(
        completeness=CompletenessLevel.COMPLETE,
        completeness_score=0.9,
        form=EvidenceForm.DOCUMENT,
        evidence_type=EvidenceType.REFUTING,
        user_intent=UserIntent.PROVIDING_EVIDENCE,
        rationale="pool metrics",
    )
    _yes(case, cf, decision=Decision.NO)
    classification = case.find_evidence(evidence.evidence_id).classification
    assert classification.evidence_type is EvidenceType.NEUTRAL


def test_disputing_vanished_evidence_fails_cleanly():
    case, _hypothesis, _evidence, cf = _refuting_case()
    case.evidence.clear()
    with pytest.raises(PreconditionFailedError, match="no evidence"):
        _yes(case, cf, decision=Decision.NO)


def test_a_solution_is_verified_only_when_evidence_shows_it_works():
    case = investigating_case()
    proposed = add_solution(case, mitigation=True)
    assert proposed.state == "proposed"
    payload = SolutionVerifiedPayload(solution_id=proposed.solution_id)
    _yes(case, propose(case, payload, now=NOW))
    assert case.solutions[0].state == "attested", "a person's word, no evidence"
    case.solutions[0].verification_evidence_id = "ev_1"
    assert case.solutions[0].state == "verified"
