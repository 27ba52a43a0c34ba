"""The case lifecycle: four statuses, a transition table, terminal states are final."""

from __future__ import annotations

import pytest

from domain.errors import IllegalTransitionError, PreconditionFailedError, TerminalCaseError
from domain.investigation.verification import (
    InvestigationPath,
    InvestigationStrategy,
    PathSelection,
    TemporalState,
    UrgencyLevel,
)
from domain.lifecycle.confirmations import ConfirmationState, Decision, StatusChangePayload
from domain.lifecycle.decisions import answer
from domain.lifecycle.proposals import propose
from domain.lifecycle.special_states import DegradedMode, DegradedModeType
from domain.lifecycle.status import VALID_TRANSITIONS, CaseStatus, ClosureReason, LifecycleLabel
from domain.lifecycle.transitions import (
    apply_transition,
    can_mark_resolved,
    can_start_investigation,
    check_transition,
    closure_reason_for,
    current_strategy,
    ensure_not_terminal,
    lifecycle_label,
)
from tests.unit.domain.builders import NOW, OPENER, investigating_case, new_case, triaged_case

ALLOWED = [(src, dst) for src, targets in VALID_TRANSITIONS.items() for dst in targets]
FORBIDDEN = [
    (src, dst)
    for src in CaseStatus
    for dst in CaseStatus
    if dst not in VALID_TRANSITIONS[src] and VALID_TRANSITIONS[src]
]


def test_the_table_has_the_four_forward_moves_of_the_seed():
    assert set(ALLOWED) == {
        (CaseStatus.CONSULTING, CaseStatus.INVESTIGATING),
        (CaseStatus.CONSULTING, CaseStatus.CLOSED),
        (CaseStatus.INVESTIGATING, CaseStatus.RESOLVED),
        (CaseStatus.INVESTIGATING, CaseStatus.CLOSED),
    }


@pytest.mark.parametrize(("src", "dst"), ALLOWED)
def test_allowed_moves_pass_the_check(src, dst):
    check_transition(src, dst)


@pytest.mark.parametrize(("src", "dst"), FORBIDDEN)
def test_moves_outside_the_table_are_illegal(src, dst):
    with pytest.raises(IllegalTransitionError):
        check_transition(src, dst)


@pytest.mark.parametrize("terminal", [CaseStatus.RESOLVED, CaseStatus.CLOSED])
@pytest.mark.parametrize("target", list(CaseStatus))
def test_terminal_states_are_final(terminal, target):
    with pytest.raises(TerminalCaseError):
        check_transition(terminal, target)


def test_investigation_starts_only_with_triage_confirmed_statement_and_decision():
    case = triaged_case()
    assert not can_start_investigation(case)
    case.consulting.problem_statement_confirmed = True
    assert not can_start_investigation(case)
    case.consulting.decided_to_investigate = True
    assert can_start_investigation(case)
    case.consulting.problem_confirmation = None
    assert not can_start_investigation(case)


def test_an_unformalised_problem_cannot_start_an_investigation():
    case = new_case()
    case.consulting.problem_statement_confirmed = True
    case.consulting.decided_to_investigate = True
    assert not can_start_investigation(case)


def test_resolved_requires_investigating_and_a_verified_solution():
    case = investigating_case()
    assert not can_mark_resolved(case)
    case.progress.solution_verified = True
    assert can_mark_resolved(case)
    assert not can_mark_resolved(triaged_case())


def test_a_status_change_without_an_accepted_confirmation_is_refused():
    case = investigating_case()
    cf = propose(case, StatusChangePayload(to_status=CaseStatus.CLOSED), now=NOW)
    with pytest.raises(PreconditionFailedError):
        apply_transition(
            case,
            CaseStatus.CLOSED,
            by=OPENER,
            reason="x",
            now=NOW,
            confirmation_id=cf.confirmation_id,
        )
    with pytest.raises(PreconditionFailedError):
        apply_transition(
            case, CaseStatus.CLOSED, by=OPENER, reason="x", now=NOW, confirmation_id="cf_missing"
        )
    assert case.status is CaseStatus.INVESTIGATING


def test_accepted_confirmation_cannot_force_a_move_whose_preconditions_fail():
    case = investigating_case()
    cf = propose(case, StatusChangePayload(to_status=CaseStatus.CLOSED), now=NOW)
    cf.state = ConfirmationState.ACCEPTED
    with pytest.raises(PreconditionFailedError):
        apply_transition(
            case,
            CaseStatus.RESOLVED,
            by=OPENER,
            reason="x",
            now=NOW,
            confirmation_id=cf.confirmation_id,
        )


def test_entering_investigation_from_a_forced_state_without_confirmation_is_refused():
    case = triaged_case()
    cf = propose(case, StatusChangePayload(to_status=CaseStatus.CLOSED), now=NOW)
    cf.state = ConfirmationState.ACCEPTED
    with pytest.raises(PreconditionFailedError):
        apply_transition(
            case,
            CaseStatus.INVESTIGATING,
            by=OPENER,
            reason="x",
            now=NOW,
            confirmation_id=cf.confirmation_id,
        )


def test_starting_investigation_creates_problem_verification_from_the_statement():
    case = investigating_case()
    assert case.status is CaseStatus.INVESTIGATING
    assert case.problem_verification is not None
    assert case.problem_verification.symptom_statement == case.consulting.proposed_problem_statement
    entry = case.status_history[-1]
    assert (entry.from_status, entry.to_status) == (CaseStatus.CONSULTING, CaseStatus.INVESTIGATING)
    assert entry.triggered_by == OPENER


@pytest.mark.parametrize(
    ("status", "requested", "expected"),
    [
        (CaseStatus.CONSULTING, None, ClosureReason.CONSULTING_ONLY),
        (CaseStatus.INVESTIGATING, None, ClosureReason.ABANDONED),
        (CaseStatus.INVESTIGATING, ClosureReason.ESCALATED, ClosureReason.ESCALATED),
        (CaseStatus.CONSULTING, ClosureReason.DUPLICATE, ClosureReason.DUPLICATE),
    ],
)
def test_closure_reasons_default_by_status(status, requested, expected):
    assert closure_reason_for(status, requested) is expected


@pytest.mark.parametrize(
    ("status", "requested"),
    [
        (CaseStatus.CONSULTING, ClosureReason.RESOLVED),
        (CaseStatus.INVESTIGATING, ClosureReason.RESOLVED),
        (CaseStatus.INVESTIGATING, ClosureReason.CONSULTING_ONLY),
    ],
)
def test_closing_with_a_reason_that_does_not_fit_is_refused(status, requested):
    with pytest.raises(PreconditionFailedError):
        closure_reason_for(status, requested)


def test_ensure_not_terminal_names_the_case():
    case = investigating_case()
    ensure_not_terminal(case)
    cf = propose(case, StatusChangePayload(to_status=CaseStatus.CLOSED), now=NOW)
    answer(case, cf.confirmation_id, by=OPENER, decision=Decision.YES, now=NOW)
    with pytest.raises(TerminalCaseError, match="closed"):
        ensure_not_terminal(case)


def _closed(reason: ClosureReason):
    case = investigating_case()
    cf = propose(
        case, StatusChangePayload(to_status=CaseStatus.CLOSED, closure_reason=reason), now=NOW
    )
    answer(case, cf.confirmation_id, by=OPENER, decision=Decision.YES, now=NOW)
    return case


def test_lifecycle_labels_map_the_seven_statuses_of_the_evidence_seed():
    assert lifecycle_label(new_case()) is LifecycleLabel.INTAKE
    case = investigating_case()
    assert lifecycle_label(case) is LifecycleLabel.IN_PROGRESS
    case.progress.mitigation_applied = True
    assert lifecycle_label(case) is LifecycleLabel.MITIGATED
    case.degraded_mode = DegradedMode(mode_type=DegradedModeType.NO_PROGRESS, reason="stuck")
    assert lifecycle_label(case) is LifecycleLabel.STALLED
    assert lifecycle_label(_closed(ClosureReason.ABANDONED)) is LifecycleLabel.ABANDONED
    assert lifecycle_label(_closed(ClosureReason.ESCALATED)) is LifecycleLabel.CLOSED
    case.progress.solution_verified = True
    case.status = CaseStatus.RESOLVED
    assert lifecycle_label(case) is LifecycleLabel.RESOLVED


def _with_path(path):
    case = investigating_case()
    case.path_selection = PathSelection(path=path, auto_selected=True, rationale="matrix")
    return case


def test_strategy_follows_the_path_and_switches_to_post_mortem_after_mitigation():
    case = _with_path(InvestigationPath.MITIGATION_FIRST)
    assert current_strategy(case) is InvestigationStrategy.ACTIVE_INCIDENT
    case.progress.mitigation_applied = True
    assert current_strategy(case) is InvestigationStrategy.POST_MORTEM
    assert (
        current_strategy(_with_path(InvestigationPath.ROOT_CAUSE))
        is InvestigationStrategy.POST_MORTEM
    )


def test_without_a_path_an_ongoing_urgent_problem_is_an_active_incident():
    case = investigating_case()
    assert current_strategy(case) is InvestigationStrategy.POST_MORTEM
    assert case.problem_verification is not None
    case.problem_verification.temporal_state = TemporalState.ONGOING
    case.problem_verification.urgency_level = UrgencyLevel.CRITICAL
    assert current_strategy(case) is InvestigationStrategy.ACTIVE_INCIDENT
    case.problem_verification.urgency_level = UrgencyLevel.LOW
    assert current_strategy(case) is InvestigationStrategy.POST_MORTEM
    assert current_strategy(new_case()) is InvestigationStrategy.POST_MORTEM
