"""Pending confirmations: proposed, answered once by an allowed person, applied exactly once."""

from __future__ import annotations

import pytest

from domain.confirmations import (
    ConfirmationKind,
    ConfirmationState,
    Decision,
    DeliverablesPayload,
    PathChoicePayload,
    ProblemStatementPayload,
    RefutationPayload,
    SolutionAppliedPayload,
    SolutionVerifiedPayload,
    StatusChangePayload,
)
from domain.decisions import AnswerOutcome, answer, may_answer
from domain.errors import (
    IllegalTransitionError,
    ImmutableFieldError,
    NotAllowedToAnswerError,
    PreconditionFailedError,
    TerminalCaseError,
    UnknownConfirmationError,
)
from domain.evidence import (
    CompletenessLevel,
    EvidenceClassification,
    EvidenceForm,
    EvidenceStance,
    EvidenceType,
    UserIntent,
)
from domain.hypotheses import HypothesisStatus, link_evidence
from domain.proposals import propose
from domain.special_states import DocumentType
from domain.status import CaseStatus, ClosureReason
from domain.verification import InvestigationPath

from .builders import (
    NOW,
    OPENER,
    STATEMENT,
    add_evidence,
    add_hypothesis,
    add_solution,
    investigating_case,
    later,
    new_case,
    triaged_case,
)

MF, RC = InvestigationPath.MITIGATION_FIRST, InvestigationPath.ROOT_CAUSE


def _yes(case, cf, by=OPENER, decision=Decision.YES):
    return answer(case, cf.confirmation_id, by=by, decision=decision, now=later())


def _closed_case():
    case = investigating_case()
    _yes(case, propose(case, StatusChangePayload(to_status=CaseStatus.CLOSED), now=NOW))
    return case


# --- problem statement -------------------------------------------------------------


def test_proposing_a_statement_records_it_for_the_person_to_confirm():
    case = triaged_case()
    cf = propose(
        case, ProblemStatementPayload(statement="API slow"), now=NOW, prompt="Is this right?"
    )
    assert case.consulting.proposed_problem_statement == "API slow"
    assert cf.kind is ConfirmationKind.PROBLEM_STATEMENT
    assert cf.is_pending
    assert cf.prompt == "Is this right?"
    assert case.pending_confirmations() == [cf]


def test_a_revised_statement_supersedes_the_pending_one():
    case = triaged_case()
    first = propose(case, ProblemStatementPayload(statement="API slow"), now=NOW)
    second = propose(case, ProblemStatementPayload(statement="API slow for 30%"), now=NOW)
    assert first.state is ConfirmationState.SUPERSEDED
    assert case.pending_confirmations() == [second]
    result = _yes(case, first)
    assert result.outcome is AnswerOutcome.SUPERSEDED
    assert not case.consulting.problem_statement_confirmed


def test_confirming_the_statement_and_investigating_starts_the_investigation():
    case = triaged_case()
    cf = propose(case, ProblemStatementPayload(statement=STATEMENT), now=NOW)
    result = _yes(case, cf)
    assert result.outcome is AnswerOutcome.APPLIED
    assert case.status is CaseStatus.INVESTIGATING
    assert case.consulting.problem_statement_confirmed
    assert case.consulting.decided_to_investigate
    assert [t.confirmation_id for t in result.transitions] == [cf.confirmation_id]
    assert result.confirmation.answered_by == OPENER


def test_confirming_only_the_statement_stays_consulting():
    case = triaged_case()
    cf = propose(case, ProblemStatementPayload(statement=STATEMENT, and_investigate=False), now=NOW)
    result = _yes(case, cf)
    assert case.status is CaseStatus.CONSULTING
    assert case.consulting.problem_statement_confirmed
    assert result.transitions == []


def test_a_confirmed_statement_is_immutable():
    case = triaged_case()
    _yes(
        case,
        propose(case, ProblemStatementPayload(statement=STATEMENT, and_investigate=False), now=NOW),
    )
    with pytest.raises(ImmutableFieldError):
        propose(case, ProblemStatementPayload(statement="something else"), now=NOW)


def test_a_statement_needs_triage_first_and_only_while_consulting():
    with pytest.raises(PreconditionFailedError, match="triaged"):
        propose(new_case(), ProblemStatementPayload(statement="x"), now=NOW)
    with pytest.raises(PreconditionFailedError, match="consulting"):
        propose(investigating_case(), ProblemStatementPayload(statement="x"), now=NOW)


def test_answering_no_changes_nothing_but_records_the_decision():
    case = triaged_case()
    cf = propose(case, ProblemStatementPayload(statement=STATEMENT), now=NOW)
    result = _yes(case, cf, decision=Decision.NO)
    assert result.outcome is AnswerOutcome.APPLIED
    assert result.confirmation.state is ConfirmationState.REJECTED
    assert case.status is CaseStatus.CONSULTING
    assert not case.consulting.problem_statement_confirmed


# --- answering rules ---------------------------------------------------------------


def test_accepting_twice_applies_once():
    case = triaged_case()
    cf = propose(case, ProblemStatementPayload(statement=STATEMENT), now=NOW)
    _yes(case, cf)
    second = _yes(case, cf)
    assert second.outcome is AnswerOutcome.ALREADY_ANSWERED
    assert len(case.status_history) == 1


def test_only_participants_may_answer_by_default():
    case = triaged_case()
    cf = propose(case, ProblemStatementPayload(statement=STATEMENT), now=NOW)
    with pytest.raises(NotAllowedToAnswerError):
        _yes(case, cf, by="U_STRANGER")
    case.add_participant("U_COLLEAGUE")
    assert _yes(case, cf, by="U_COLLEAGUE").outcome is AnswerOutcome.APPLIED


def test_named_answerers_and_configured_responders_override_participants():
    case = triaged_case()
    cf = propose(
        case, ProblemStatementPayload(statement=STATEMENT), now=NOW, answerable_by=["U_LEAD"]
    )
    assert may_answer(case, cf, "U_LEAD")
    assert not may_answer(case, cf, OPENER)
    open_cf = propose(case, ProblemStatementPayload(statement=STATEMENT), now=NOW)
    assert may_answer(case, open_cf, "U_ONCALL", responders={"U_ONCALL"})
    assert not may_answer(case, open_cf, OPENER, responders={"U_ONCALL"})


def test_an_unknown_confirmation_is_an_error():
    with pytest.raises(UnknownConfirmationError):
        answer(triaged_case(), "cf_nope", by=OPENER, decision=Decision.YES, now=NOW)


def test_not_sure_is_only_for_refutations():
    case = triaged_case()
    cf = propose(case, ProblemStatementPayload(statement=STATEMENT), now=NOW)
    with pytest.raises(PreconditionFailedError, match="not sure"):
        _yes(case, cf, decision=Decision.UNSURE)


def test_a_failing_rule_leaves_the_case_and_the_question_untouched():
    case = investigating_case()
    cf = propose(
        case, StatusChangePayload(to_status=CaseStatus.RESOLVED, resolution_summary="x"), now=NOW
    )
    cf.payload = StatusChangePayload(to_status=CaseStatus.RESOLVED)
    before = case.model_dump()
    with pytest.raises(PreconditionFailedError):
        _yes(case, cf)
    assert case.model_dump() == before
    assert case.find_confirmation(cf.confirmation_id).is_pending


# --- status changes ----------------------------------------------------------------


def test_requesting_investigation_needs_a_statement_to_confirm():
    with pytest.raises(PreconditionFailedError, match="statement"):
        propose(new_case(), StatusChangePayload(to_status=CaseStatus.INVESTIGATING), now=NOW)
    case = new_case()
    case.consulting.proposed_problem_statement = STATEMENT
    with pytest.raises(PreconditionFailedError, match="triaged"):
        propose(case, StatusChangePayload(to_status=CaseStatus.INVESTIGATING), now=NOW)


def test_accepting_a_move_to_investigating_confirms_the_statement_shown():
    case = triaged_case()
    _yes(case, propose(case, StatusChangePayload(to_status=CaseStatus.INVESTIGATING), now=NOW))
    assert case.status is CaseStatus.INVESTIGATING
    assert case.consulting.problem_statement_confirmed


def test_closing_from_consulting_is_consulting_only():
    case = new_case()
    _yes(case, propose(case, StatusChangePayload(to_status=CaseStatus.CLOSED), now=NOW))
    assert (case.status, case.closure_reason) == (CaseStatus.CLOSED, "consulting_only")
    assert case.closed_at == later()


def test_closing_an_investigation_with_a_reason():
    case = investigating_case()
    payload = StatusChangePayload(
        to_status=CaseStatus.CLOSED, closure_reason=ClosureReason.ESCALATED
    )
    _yes(case, propose(case, payload, now=NOW))
    assert case.closure_reason == "escalated"
    assert case.time_to_resolution is not None


def test_illegal_status_changes_are_refused_when_proposed():
    with pytest.raises(IllegalTransitionError):
        propose(new_case(), StatusChangePayload(to_status=CaseStatus.RESOLVED), now=NOW)
    with pytest.raises(PreconditionFailedError):
        propose(
            investigating_case(),
            StatusChangePayload(to_status=CaseStatus.CLOSED, closure_reason=ClosureReason.RESOLVED),
            now=NOW,
        )


def test_resolving_needs_a_verified_solution_or_what_fixed_it():
    case = investigating_case()
    with pytest.raises(PreconditionFailedError, match="what fixed it"):
        propose(case, StatusChangePayload(to_status=CaseStatus.RESOLVED), now=NOW)
    payload = StatusChangePayload(
        to_status=CaseStatus.RESOLVED, resolution_summary="Rolled back v2.1.3"
    )
    _yes(case, propose(case, payload, now=NOW))
    assert case.status is CaseStatus.RESOLVED
    assert case.closure_reason == "resolved"
    assert case.solutions[-1].verified_by == OPENER
    assert case.progress.solution_verified


def test_resolving_a_verified_case_records_the_transition():
    case = investigating_case()
    case.progress.solution_verified = True
    _yes(case, propose(case, StatusChangePayload(to_status=CaseStatus.RESOLVED), now=NOW))
    assert case.resolved_at == case.closed_at == later()


def test_a_status_change_supersedes_other_pending_questions():
    case = triaged_case()
    statement = propose(case, ProblemStatementPayload(statement=STATEMENT), now=NOW)
    close = propose(case, StatusChangePayload(to_status=CaseStatus.CLOSED), now=NOW)
    _yes(case, close)
    assert statement.state is ConfirmationState.SUPERSEDED


def test_resolving_a_closed_case_is_rejected():
    case = _closed_case()
    with pytest.raises(TerminalCaseError):
        propose(
            case,
            StatusChangePayload(to_status=CaseStatus.RESOLVED, resolution_summary="x"),
            now=NOW,
        )


def test_deliverables_can_be_offered_on_a_terminal_case():
    case = _closed_case()
    cf = propose(
        case,
        DeliverablesPayload(documents=[DocumentType.INCIDENT_REPORT, DocumentType.RUNBOOK]),
        now=NOW,
    )
    _yes(case, cf)
    assert case.documentation.artifacts.requested == [
        DocumentType.INCIDENT_REPORT,
        DocumentType.RUNBOOK,
    ]


def test_declining_deliverables_is_remembered():
    case = _closed_case()
    _yes(
        case,
        propose(case, DeliverablesPayload(documents=[DocumentType.RUNBOOK]), now=NOW),
        decision=Decision.NO,
    )
    assert case.documentation.artifacts.declined


# --- path choice -------------------------------------------------------------------


@pytest.mark.parametrize(("decision", "expected"), [(Decision.YES, MF), (Decision.NO, RC)])
def test_path_choice_yes_takes_the_path_no_takes_the_alternate(decision, expected):
    case = investigating_case()
    cf = propose(case, PathChoicePayload(path=MF, alternate=RC), now=NOW)
    result = _yes(case, cf, decision=decision)
    assert result.confirmation.state is ConfirmationState.ACCEPTED
    assert case.path is expected
    assert case.path_selection is not None
    assert case.path_selection.selected_by == OPENER


def test_path_choice_is_between_the_two_concrete_paths_while_investigating():
    with pytest.raises(PreconditionFailedError):
        propose(investigating_case(), PathChoicePayload(path=MF, alternate=MF), now=NOW)
    with pytest.raises(PreconditionFailedError, match="investigating"):
        propose(triaged_case(), PathChoicePayload(path=MF, alternate=RC), now=NOW)


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


def test_investigating_after_confirming_the_statement_keeps_the_first_confirmation_time():
    case = triaged_case()
    _yes(
        case,
        propose(case, ProblemStatementPayload(statement=STATEMENT, and_investigate=False), now=NOW),
    )
    confirmed_at = case.consulting.problem_statement_confirmed_at
    cf = propose(case, StatusChangePayload(to_status=CaseStatus.INVESTIGATING), now=NOW)
    answer(case, cf.confirmation_id, by=OPENER, decision=Decision.YES, now=later(30))
    assert case.status is CaseStatus.INVESTIGATING
    assert case.consulting.problem_statement_confirmed_at == confirmed_at
