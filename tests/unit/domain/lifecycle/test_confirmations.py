"""Pending confirmations: proposed, answered once by an allowed person, applied exactly once."""

from __future__ import annotations

import pytest

from domain.errors import (
    IllegalTransitionError,
    ImmutableFieldError,
    NotAllowedToAnswerError,
    PreconditionFailedError,
    TerminalCaseError,
    UnknownConfirmationError,
)
from domain.investigation.verification import InvestigationPath
from domain.lifecycle.confirmations import (
    ConfirmationKind,
    ConfirmationState,
    Decision,
    DeliverablesPayload,
    PathChoicePayload,
    ProblemStatementPayload,
    StatusChangePayload,
)
from domain.lifecycle.decisions import AnswerOutcome, answer, may_answer
from domain.lifecycle.proposals import propose
from domain.lifecycle.responders import ResponderSet, ResponderSource
from domain.lifecycle.special_states import DocumentType
from domain.lifecycle.status import CaseStatus, ClosureReason
from tests.unit.domain.builders import (
    NOW,
    OPENER,
    STATEMENT,
    investigating_case,
    later,
    new_case,
    triaged_case,
)
from tests.unit.domain.builders import answer_yes as _yes

MF, RC = InvestigationPath.MITIGATION_FIRST, InvestigationPath.ROOT_CAUSE
YES = Decision.YES
ON_CALL = ResponderSet(
    members=frozenset({"U_ONCALL"}), source=ResponderSource.CONFIRMERS, group="S_ONCALL"
)


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
    with pytest.raises(PreconditionFailedError, match="before the investigation starts"):
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
    assert may_answer(case, open_cf, "U_ONCALL", responders=ON_CALL)
    assert not may_answer(case, open_cf, OPENER, responders=ON_CALL)


def test_a_refusal_says_who_may_answer():
    case = triaged_case()
    named = propose(
        case, ProblemStatementPayload(statement=STATEMENT), now=NOW, answerable_by=["U_LEAD"]
    )
    with pytest.raises(NotAllowedToAnswerError) as by_name:
        answer(case, named.confirmation_id, by="U_X", decision=YES, now=NOW, responders=ON_CALL)
    anyone = propose(case, ProblemStatementPayload(statement=STATEMENT), now=NOW)
    with pytest.raises(NotAllowedToAnswerError) as by_group:
        answer(case, anyone.confirmation_id, by="U_X", decision=YES, now=NOW, responders=ON_CALL)

    assert by_name.value.named == ("U_LEAD",)
    assert by_group.value.named == ()
    assert by_group.value.responders == ON_CALL


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
