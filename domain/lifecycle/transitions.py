"""Status rules: the transition table enforced, its preconditions, and derived labels."""

from __future__ import annotations

from datetime import datetime

from domain.case import Case
from domain.errors import IllegalTransitionError, PreconditionFailedError, TerminalCaseError
from domain.investigation.verification import (
    InvestigationPath,
    InvestigationStrategy,
    ProblemVerification,
    TemporalState,
    UrgencyLevel,
)
from domain.lifecycle.confirmations import ConfirmationState
from domain.lifecycle.status import (
    VALID_TRANSITIONS,
    CaseStatus,
    CaseStatusTransition,
    ClosureReason,
    LifecycleLabel,
)

CLOSURE_REASONS: dict[CaseStatus, frozenset[ClosureReason]] = {
    CaseStatus.CONSULTING: frozenset(ClosureReason) - {ClosureReason.RESOLVED},
    CaseStatus.INVESTIGATING: frozenset(ClosureReason)
    - {ClosureReason.RESOLVED, ClosureReason.CONSULTING_ONLY},
}
DEFAULT_CLOSURE: dict[CaseStatus, ClosureReason] = {
    CaseStatus.CONSULTING: ClosureReason.CONSULTING_ONLY,
    CaseStatus.INVESTIGATING: ClosureReason.ABANDONED,
}


def ensure_not_terminal(case: Case) -> None:
    """Raise if the case is resolved or closed."""
    if case.is_terminal:
        raise TerminalCaseError(
            f"case {case.short_id or case.case_id} is {case.status}; it is final"
        )


def check_transition(current: CaseStatus, target: CaseStatus) -> None:
    """Raise unless the transition table allows ``current`` → ``target``."""
    if not VALID_TRANSITIONS[current]:
        raise TerminalCaseError(f"a {current} case is final and cannot become {target}")
    if target not in VALID_TRANSITIONS[current]:
        raise IllegalTransitionError(f"a {current} case cannot become {target}")


def closure_reason_for(current: CaseStatus, requested: ClosureReason | None) -> ClosureReason:
    """Validate the reason for closing from ``current``, defaulting sensibly."""
    reason = requested or DEFAULT_CLOSURE[current]
    if reason not in CLOSURE_REASONS[current]:
        raise PreconditionFailedError(f"a {current} case cannot be closed as '{reason}'")
    return reason


def can_start_investigation(case: Case) -> bool:
    """Problem understood, statement formalised and confirmed, and the person chose to dig in."""
    consulting = case.consulting
    return (
        case.status is CaseStatus.CONSULTING
        and consulting.problem_confirmation is not None
        and consulting.proposed_problem_statement is not None
        and consulting.problem_statement_confirmed
        and consulting.decided_to_investigate
    )


def can_mark_resolved(case: Case) -> bool:
    """Investigating and the solution is verified."""
    return case.status is CaseStatus.INVESTIGATING and case.progress.solution_verified


def apply_transition(
    case: Case,
    target: CaseStatus,
    *,
    by: str,
    reason: str,
    now: datetime,
    confirmation_id: str,
    closure_reason: ClosureReason | None = None,
) -> CaseStatusTransition:
    """Change the status, authorised by an accepted confirmation; record it in the history."""
    confirmation = case.find_confirmation(confirmation_id)
    if confirmation is None or confirmation.state is not ConfirmationState.ACCEPTED:
        raise PreconditionFailedError("a status change needs a confirmation a person accepted")
    check_transition(case.status, target)
    _check_preconditions(case, target)
    entry = CaseStatusTransition(
        from_status=case.status,
        to_status=target,
        triggered_at=now,
        triggered_by=by,
        reason=reason,
        confirmation_id=confirmation_id,
    )
    _enter(case, target, now=now, closure_reason=closure_reason)
    case.status_history.append(entry)
    case.updated_at = now
    _supersede_pending(case)
    return entry


def _check_preconditions(case: Case, target: CaseStatus) -> None:
    if target is CaseStatus.INVESTIGATING and not can_start_investigation(case):
        raise PreconditionFailedError(
            "investigation starts once the problem statement is confirmed "
            "and someone chose to investigate"
        )
    if target is CaseStatus.RESOLVED and not can_mark_resolved(case):
        raise PreconditionFailedError("a case is resolved only once its solution is verified")


def _enter(
    case: Case, target: CaseStatus, *, now: datetime, closure_reason: ClosureReason | None
) -> None:
    if target is CaseStatus.INVESTIGATING:
        statement = case.consulting.proposed_problem_statement or case.title
        case.problem_verification = ProblemVerification(symptom_statement=statement)
    elif target is CaseStatus.RESOLVED:
        case.resolved_at = now
        case.closed_at = now
        case.closure_reason = ClosureReason.RESOLVED.value
    else:
        case.closure_reason = closure_reason_for(case.status, closure_reason).value
        case.closed_at = now
    case.status = target


def _supersede_pending(case: Case) -> None:
    """After a status change, open questions about the old status no longer apply."""
    for confirmation in case.pending_confirmations():
        confirmation.state = ConfirmationState.SUPERSEDED


def lifecycle_label(case: Case) -> LifecycleLabel:
    """The evidence seed's seven-status view of the case, for display."""
    if case.status is CaseStatus.CONSULTING:
        return LifecycleLabel.INTAKE
    if case.status is CaseStatus.RESOLVED:
        return LifecycleLabel.RESOLVED
    if case.status is CaseStatus.CLOSED:
        abandoned = case.closure_reason == ClosureReason.ABANDONED.value
        return LifecycleLabel.ABANDONED if abandoned else LifecycleLabel.CLOSED
    if case.degraded_mode is not None and case.degraded_mode.is_active:
        return LifecycleLabel.STALLED
    if case.progress.mitigation_applied and not case.progress.solution_applied:
        return LifecycleLabel.MITIGATED
    return LifecycleLabel.IN_PROGRESS


def current_strategy(case: Case) -> InvestigationStrategy:
    """Active incident until mitigated on the mitigation-first path; post-mortem otherwise."""
    if case.path is InvestigationPath.MITIGATION_FIRST:
        if case.progress.mitigation_applied:
            return InvestigationStrategy.POST_MORTEM
        return InvestigationStrategy.ACTIVE_INCIDENT
    if case.path is InvestigationPath.ROOT_CAUSE:
        return InvestigationStrategy.POST_MORTEM
    pv = case.problem_verification
    urgent = pv is not None and pv.urgency_level in (UrgencyLevel.CRITICAL, UrgencyLevel.HIGH)
    ongoing = pv is not None and pv.temporal_state is TemporalState.ONGOING
    if urgent and ongoing and not case.progress.mitigation_applied:
        return InvestigationStrategy.ACTIVE_INCIDENT
    return InvestigationStrategy.POST_MORTEM
