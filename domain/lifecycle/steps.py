"""A person's own word on a solution step: recorded as their answer, not asked; and taken back.

"I've applied it" on a mitigation's card, or a message saying it was rolled back, is the person's
answer already: it is recorded as an accepted confirmation in their name (so the audit trail and
the summary read as for any answer), not put to them as a question. While nothing later depends on
it (the solution not verified, the case not finished), the same person or another responder may
take it back (Undo): the step is reverted and the questions that followed it no longer apply.
"""

from __future__ import annotations

from datetime import datetime

from domain.case import Case
from domain.errors import NotAllowedToAnswerError, PreconditionFailedError
from domain.investigation.conclusions import Solution
from domain.lifecycle.confirmations import (
    ConfirmationKind,
    ConfirmationState,
    Decision,
    PendingConfirmation,
    SolutionAppliedPayload,
    SolutionVerifiedPayload,
    StatusChangePayload,
)
from domain.lifecycle.decisions import AnswerResult, answer, is_responder
from domain.lifecycle.proposals import propose
from domain.lifecycle.responders import ResponderSet
from domain.lifecycle.status import CaseStatus
from domain.people import mention

StepPayload = SolutionAppliedPayload | SolutionVerifiedPayload
UNDOABLE = frozenset({ConfirmationKind.SOLUTION_APPLIED, ConfirmationKind.SOLUTION_VERIFIED})


def record_step(
    case: Case,
    payload: StepPayload,
    *,
    by: str,
    now: datetime,
    prompt: str = "",
    responders: ResponderSet | None = None,
) -> AnswerResult:
    """Record that ``by`` applied (or verified) a solution: their answer, Yes, in their name.

    Only a responder's word counts (as for any answer); the rules of proposing still hold.
    """
    if not is_responder(case, by, responders=responders):
        raise NotAllowedToAnswerError(
            f"{mention(by)} may not answer this question", named=[], responders=responders
        )
    asked = propose(case, payload, now=now, prompt=prompt, proposed_by=by, answerable_by=[by])
    return answer(case, asked.confirmation_id, by=by, decision=Decision.YES, now=now)


def undoable(case: Case, confirmation: PendingConfirmation) -> bool:
    """Whether the step can still be taken back: nothing later depends on it."""
    payload = confirmation.payload
    if (
        confirmation.kind not in UNDOABLE
        or confirmation.state is not ConfirmationState.ACCEPTED
        or case.is_terminal
        or not isinstance(payload, SolutionAppliedPayload | SolutionVerifiedPayload)
    ):
        return False
    solution = case.find_solution(payload.solution_id)
    if solution is None:
        return False
    if isinstance(payload, SolutionAppliedPayload):
        return solution.applied_at is not None and solution.verified_at is None
    return solution.verified_at is not None and solution.is_mitigation


def undo(
    case: Case,
    confirmation_id: str,
    *,
    by: str,
    now: datetime,
    responders: ResponderSet | None = None,
) -> list[PendingConfirmation]:
    """Take a recorded step back; return the questions that followed it and no longer apply."""
    confirmation = case.find_confirmation(confirmation_id)
    if confirmation is None:
        raise PreconditionFailedError(f"no confirmation {confirmation_id} in this case")
    if by != confirmation.answered_by and not is_responder(case, by, responders=responders):
        raise NotAllowedToAnswerError(
            f"{mention(by)} may not answer this question", named=[], responders=responders
        )
    if not undoable(case, confirmation):
        raise PreconditionFailedError("that can't be taken back any more: later steps depend on it")
    payload = confirmation.payload
    assert isinstance(payload, SolutionAppliedPayload | SolutionVerifiedPayload)
    solution = case.find_solution(payload.solution_id)
    assert solution is not None
    if isinstance(payload, SolutionAppliedPayload):
        solution.applied_at = solution.applied_by = None
    else:
        solution.verified_at = solution.verified_by = None
        solution.verification_evidence_id = solution.verification_method = None
    _recount(case)
    confirmation.state = ConfirmationState.UNDONE
    confirmation.undone_by = by
    case.updated_at = now
    followed = [c for c in case.pending_confirmations() if _follows(c, solution)]
    for later in followed:
        later.state = ConfirmationState.SUPERSEDED
    return followed


def _follows(confirmation: PendingConfirmation, solution: Solution) -> bool:
    """A question asked because of the step: whether it fixed it, resolving on it."""
    payload = confirmation.payload
    if isinstance(payload, SolutionVerifiedPayload):
        return payload.solution_id == solution.solution_id
    return isinstance(payload, StatusChangePayload) and payload.to_status is CaseStatus.RESOLVED


def _recount(case: Case) -> None:
    """The human milestones as the solutions now stand."""
    progress = case.progress
    applied = [s for s in case.solutions if s.applied_at is not None]
    progress.mitigation_applied = any(s.is_mitigation for s in applied)
    progress.solution_applied = any(not s.is_mitigation for s in applied)
    progress.solution_verified = any(
        not s.is_mitigation and s.verified_at is not None for s in case.solutions
    )


def defer(case: Case, solution_id: str, *, by: str, responders: ResponderSet | None = None) -> None:
    """ "Not now" on a mitigation's card: it stays offered, no longer the next step."""
    if not is_responder(case, by, responders=responders):
        raise NotAllowedToAnswerError(
            f"{mention(by)} may not answer this question", named=[], responders=responders
        )
    solution = case.find_solution(solution_id)
    if solution is None:
        raise PreconditionFailedError(f"no solution {solution_id} in this case")
    if solution.applied_at is None:
        solution.deferred_by = by
