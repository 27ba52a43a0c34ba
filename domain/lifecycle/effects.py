"""What an accepted (or rejected) confirmation does to the case."""

from __future__ import annotations

from datetime import datetime

from domain.case import Case
from domain.errors import PreconditionFailedError
from domain.investigation.conclusions import DeadEnd, Solution, SolutionType
from domain.investigation.evidence import EvidenceType
from domain.investigation.evidence_requests import (
    AcquisitionGuidance,
    EvidenceRequest,
    RequestCategory,
)
from domain.investigation.hypotheses import HypothesisStatus, conclude, contradiction_confidence
from domain.investigation.verification import PathSelection, choose_path
from domain.lifecycle.confirmations import (
    ConfirmationState,
    Decision,
    DeliverablesPayload,
    PathChoicePayload,
    PendingConfirmation,
    ProblemStatementPayload,
    RefutationPayload,
    SolutionAppliedPayload,
    SolutionVerifiedPayload,
    StatusChangePayload,
)
from domain.lifecycle.status import CaseStatus
from domain.lifecycle.transitions import (
    apply_transition,
    can_mark_resolved,
    can_start_investigation,
)
from domain.people import mention

REFUTED_CONFIDENCE_DEFAULT = 0.8


def apply_effect(
    case: Case, confirmation: PendingConfirmation, *, decision: Decision, by: str, now: datetime
) -> None:
    """Dispatch on the payload; a rejected confirmation changes nothing except for refutations."""
    payload = confirmation.payload
    accepted = confirmation.state is ConfirmationState.ACCEPTED
    cid = confirmation.confirmation_id
    if isinstance(payload, RefutationPayload):
        _refutation(case, payload, decision=decision, now=now)
    elif not accepted:
        _declined(case, confirmation)
    elif isinstance(payload, StatusChangePayload):
        _status_change(case, payload, by=by, now=now, cid=cid)
    elif isinstance(payload, ProblemStatementPayload):
        _problem_statement(case, payload, by=by, now=now, cid=cid)
    elif isinstance(payload, PathChoicePayload):
        _path_choice(case, payload, decision=decision, by=by, now=now)
    elif isinstance(payload, SolutionAppliedPayload):
        _solution_applied(case, payload.solution_id, by=by, now=now)
    elif isinstance(payload, SolutionVerifiedPayload):
        _solution_verified(case, payload, by=by, now=now, cid=cid)
    else:
        case.documentation.artifacts.requested = list(payload.documents)


def _declined(case: Case, confirmation: PendingConfirmation) -> None:
    if isinstance(confirmation.payload, DeliverablesPayload):
        case.documentation.artifacts.declined = True


def _status_change(
    case: Case, payload: StatusChangePayload, *, by: str, now: datetime, cid: str
) -> None:
    reason = payload.reason or f"requested by {mention(by)}"
    if payload.to_status is CaseStatus.INVESTIGATING:
        _confirm_statement(case, now=now)
        _decide_to_investigate(case, now=now)
    elif payload.to_status is CaseStatus.RESOLVED and not can_mark_resolved(case):
        if not payload.resolution_summary:
            raise PreconditionFailedError("the solution is not verified and no fix was described")
        _record_attested_fix(case, payload.resolution_summary, by=by, now=now)
    apply_transition(
        case,
        payload.to_status,
        by=by,
        reason=reason,
        now=now,
        confirmation_id=cid,
        closure_reason=payload.closure_reason,
    )


def _problem_statement(
    case: Case, payload: ProblemStatementPayload, *, by: str, now: datetime, cid: str
) -> None:
    case.consulting.proposed_problem_statement = payload.statement
    _confirm_statement(case, now=now)
    if payload.and_investigate:
        _decide_to_investigate(case, now=now)
    if can_start_investigation(case):
        apply_transition(
            case,
            CaseStatus.INVESTIGATING,
            by=by,
            reason="problem statement confirmed and investigation requested",
            now=now,
            confirmation_id=cid,
        )


def _confirm_statement(case: Case, *, now: datetime) -> None:
    if not case.consulting.problem_statement_confirmed:
        case.consulting.problem_statement_confirmed = True
        case.consulting.problem_statement_confirmed_at = now


def _decide_to_investigate(case: Case, *, now: datetime) -> None:
    case.consulting.decided_to_investigate = True
    case.consulting.decision_made_at = now


def _path_choice(
    case: Case, payload: PathChoicePayload, *, decision: Decision, by: str, now: datetime
) -> None:
    chosen = payload.path if decision is Decision.YES else payload.alternate
    base = case.path_selection or PathSelection(
        path=chosen, auto_selected=False, rationale="", selected_at=now
    )
    case.path_selection = choose_path(base, chosen, by=by, now=now)


def _refutation(
    case: Case, payload: RefutationPayload, *, decision: Decision, now: datetime
) -> None:
    if decision is Decision.YES:
        for hypothesis_id in payload.hypothesis_ids:
            _refute(case, hypothesis_id, payload, now=now)
    elif decision is Decision.NO:
        evidence = case.find_evidence(payload.evidence_id)
        if evidence is None:
            raise PreconditionFailedError(f"no evidence {payload.evidence_id} in this case")
        evidence.disputed = True
        if evidence.classification is not None:
            evidence.classification.evidence_type = EvidenceType.NEUTRAL
    else:
        case.evidence_requests.append(
            EvidenceRequest(
                label="Re-verify the contradictory data",
                description="Please re-check the data that contradicted the hypothesis.",
                category=RequestCategory.SYMPTOMS,
                guidance=AcquisitionGuidance(
                    alternatives=["Cross-check with a different data source"]
                ),
                created_at_turn=case.current_turn,
                metadata={"reverifies_evidence_id": payload.evidence_id},
            )
        )


def _refute(case: Case, hypothesis_id: str, payload: RefutationPayload, *, now: datetime) -> None:
    hypothesis = case.hypotheses[hypothesis_id]
    if hypothesis.status is HypothesisStatus.REFUTED:
        return
    link = hypothesis.evidence_links.get(payload.evidence_id)
    confidence = contradiction_confidence(link) if link else REFUTED_CONFIDENCE_DEFAULT
    conclude(hypothesis, HypothesisStatus.REFUTED, now=now)
    if payload.evidence_id not in hypothesis.refuting_evidence:
        hypothesis.refuting_evidence.append(payload.evidence_id)
    case.dead_ends.append(
        DeadEnd(
            hypothesis=hypothesis.statement,
            evidence_checked=[payload.evidence_id],
            why_ruled_out=payload.explanation or "contradicted by evidence, confirmed by a person",
            turn_number=case.current_turn,
            confidence_eliminated=min(confidence, 1.0),
        )
    )


def _solution_applied(case: Case, solution_id: str, *, by: str, now: datetime) -> Solution:
    solution = case.find_solution(solution_id)
    if solution is None:
        raise PreconditionFailedError(f"no solution {solution_id} in this case")
    if solution.applied_at is None:
        solution.applied_at, solution.applied_by = now, by
    case.progress.solution_proposed = True
    if solution.is_mitigation:
        case.progress.mitigation_applied = True
    else:
        case.progress.solution_applied = True
    return solution


def _solution_verified(
    case: Case, payload: SolutionVerifiedPayload, *, by: str, now: datetime, cid: str
) -> None:
    solution = _solution_applied(case, payload.solution_id, by=by, now=now)
    solution.verified_at, solution.verified_by = now, by
    solution.verification_evidence_id = payload.evidence_id
    if solution.is_mitigation:
        return
    case.progress.solution_verified = True
    # A verified permanent fix resolves the case: the seed's one automatic terminal transition,
    # authorised by the person who just confirmed the verification.
    apply_transition(
        case,
        CaseStatus.RESOLVED,
        by=by,
        reason=f"solution verified: {solution.title}",
        now=now,
        confirmation_id=cid,
    )


def _record_attested_fix(case: Case, summary: str, *, by: str, now: datetime) -> None:
    """A person says what fixed it; record that as an applied, verified solution (the one the
    case has by that name, when they name one: a mitigation they said worked)."""
    title = summary[:200]
    solution = next((s for s in case.solutions if s.title == title), None)
    if solution is None:
        solution = Solution(
            solution_type=SolutionType.OTHER,
            title=title,
            immediate_action=summary,
            proposed_at=now,
            proposed_by=by,
        )
        case.solutions.append(solution)
    solution.applied_at, solution.applied_by = solution.applied_at or now, solution.applied_by or by
    if solution.verified_at is None:
        solution.verified_at, solution.verified_by = now, by
        solution.verification_method = "attested by a person"
    case.progress.solution_proposed = True
    case.progress.solution_applied = True
    case.progress.solution_verified = True
