"""Proposing confirmations: check the change would be legal, then ask a person."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from domain.case import Case
from domain.errors import ImmutableFieldError, PreconditionFailedError, TerminalCaseError
from domain.investigation.verification import InvestigationPath
from domain.lifecycle.confirmations import (
    ConfirmationKind,
    ConfirmationPayload,
    ConfirmationState,
    PathChoicePayload,
    PendingConfirmation,
    ProblemStatementPayload,
    RefutationPayload,
    SolutionAppliedPayload,
    SolutionVerifiedPayload,
    StatusChangePayload,
)
from domain.lifecycle.status import CaseStatus
from domain.lifecycle.transitions import can_mark_resolved, check_transition, closure_reason_for

ALLOWED_WHEN_TERMINAL = frozenset({ConfirmationKind.DELIVERABLES})


def propose(
    case: Case,
    payload: ConfirmationPayload,
    *,
    now: datetime,
    prompt: str = "",
    proposed_by: str = "agent",
    answerable_by: Iterable[str] = (),
) -> PendingConfirmation:
    """Validate and record a proposal; it replaces any pending one on the same subject."""
    validate_proposal(case, payload)
    confirmation = PendingConfirmation(
        payload=payload,
        prompt=prompt,
        answerable_by=list(answerable_by),
        proposed_at=now,
        proposed_by=proposed_by,
        proposed_at_turn=case.current_turn,
    )
    for older in case.pending_confirmations():
        if older.supersede_key == confirmation.supersede_key:
            older.state = ConfirmationState.SUPERSEDED
    if isinstance(payload, ProblemStatementPayload):
        case.consulting.proposed_problem_statement = payload.statement
    case.confirmations.append(confirmation)
    case.updated_at = now
    return confirmation


def validate_proposal(case: Case, payload: ConfirmationPayload) -> None:
    """Raise a domain error if accepting this proposal could never be applied."""
    if case.is_terminal and payload.kind not in ALLOWED_WHEN_TERMINAL:
        raise TerminalCaseError(f"the case is {case.status}; it is final")
    if isinstance(payload, StatusChangePayload):
        _validate_status_change(case, payload)
    elif isinstance(payload, ProblemStatementPayload):
        _validate_problem_statement(case)
    elif isinstance(payload, PathChoicePayload):
        _validate_path_choice(case, payload)
    elif isinstance(payload, RefutationPayload):
        _validate_refutation(case, payload)
    elif isinstance(payload, SolutionAppliedPayload | SolutionVerifiedPayload):
        _require_investigating(case, "solution updates")
        if case.find_solution(payload.solution_id) is None:
            raise PreconditionFailedError(f"no solution {payload.solution_id} in this case")


def _validate_status_change(case: Case, payload: StatusChangePayload) -> None:
    check_transition(case.status, payload.to_status)
    if payload.to_status is CaseStatus.INVESTIGATING:
        if case.consulting.proposed_problem_statement is None:
            raise PreconditionFailedError(
                "before we can investigate, the problem needs a statement to confirm"
            )
        _require_problem_confirmation(case)
    elif payload.to_status is CaseStatus.RESOLVED:
        if not can_mark_resolved(case) and not payload.resolution_summary:
            raise PreconditionFailedError(
                "to mark the case resolved, say what fixed it or verify the solution first"
            )
    else:
        closure_reason_for(case.status, payload.closure_reason)


def _validate_problem_statement(case: Case) -> None:
    if case.status is not CaseStatus.CONSULTING:
        raise PreconditionFailedError(
            "the problem statement can only change before the investigation starts"
        )
    if case.consulting.problem_statement_confirmed:
        raise ImmutableFieldError("the problem statement is already confirmed and cannot change")
    _require_problem_confirmation(case)


def _require_problem_confirmation(case: Case) -> None:
    if case.consulting.problem_confirmation is None:
        raise PreconditionFailedError("the problem has not been triaged yet (type and severity)")


def _validate_path_choice(case: Case, payload: PathChoicePayload) -> None:
    _require_investigating(case, "choosing a path")
    concrete = {InvestigationPath.MITIGATION_FIRST, InvestigationPath.ROOT_CAUSE}
    if {payload.path, payload.alternate} != concrete:
        raise PreconditionFailedError("a path choice is between mitigation first and root cause")


def _validate_refutation(case: Case, payload: RefutationPayload) -> None:
    _require_investigating(case, "refuting hypotheses")
    missing = [h for h in payload.hypothesis_ids if h not in case.hypotheses]
    if missing:
        raise PreconditionFailedError(f"unknown hypotheses: {', '.join(missing)}")
    if case.find_evidence(payload.evidence_id) is None:
        raise PreconditionFailedError(f"no evidence {payload.evidence_id} in this case")


def _require_investigating(case: Case, what: str) -> None:
    if case.status is not CaseStatus.INVESTIGATING:
        raise PreconditionFailedError(f"{what} happens while investigating")
