"""Builders for storage tests: cases from empty to every optional field set."""

from __future__ import annotations

from domain.case import Case
from domain.investigation.hypotheses import HypothesisStatus
from domain.investigation.verification import ProblemConfirmation
from domain.lifecycle.confirmations import (
    Decision,
    DeliverablesPayload,
    PendingConfirmation,
    ProblemStatementPayload,
    StatusChangePayload,
)
from domain.lifecycle.decisions import answer
from domain.lifecycle.proposals import propose
from domain.lifecycle.special_states import DocumentType
from domain.lifecycle.status import CaseStatus
from tests.integration.storage import case_outcomes as outcomes
from tests.integration.storage import case_parts as parts
from tests.integration.storage.case_parts import HELPER, NOW, OPENER, STATEMENT, at

__all__ = [
    "HELPER",
    "NOW",
    "OPENER",
    "STATEMENT",
    "at",
    "full_case",
    "new_case",
    "resolve",
    "start_investigating",
    "triaged",
]


def new_case(
    *, team_id: str = "T1", channel_id: str = "C1", thread_ts: str = "1700000000.000100"
) -> Case:
    """A fresh consulting case opened by OPENER."""
    return Case(
        team_id=team_id,
        channel_id=channel_id,
        thread_ts=thread_ts,
        user_id=OPENER,
        title="payments 500s",
        created_at=NOW,
        updated_at=NOW,
    )


def triaged(case: Case) -> Case:
    """Give the case the triage and statement it needs before investigating."""
    case.consulting.problem_confirmation = ProblemConfirmation(
        problem_type="error",
        severity_guess="HIGH",
        preliminary_guidance="Check the last deploy",
        affected_components=["payments-api", "postgres"],
        impact="30% of checkouts fail",
        investigation_approach="Correlate the error spike with changes",
        estimated_evidence_needed=["app.log", "deploy history"],
        created_at=at(1),
    )
    case.consulting.proposed_problem_statement = STATEMENT
    return case


def start_investigating(case: Case, *, minute: int = 2) -> PendingConfirmation:
    """Propose and accept the problem statement: the case moves to investigating."""
    confirmation = propose(case, ProblemStatementPayload(statement=STATEMENT), now=at(minute))
    answer(case, confirmation.confirmation_id, by=OPENER, decision=Decision.YES, now=at(minute))
    return confirmation


def resolve(case: Case, *, minute: int = 60) -> PendingConfirmation:
    """Propose and accept resolving the case with an attested fix."""
    confirmation = propose(
        case,
        StatusChangePayload(
            to_status=CaseStatus.RESOLVED,
            reason="error rate back to baseline",
            resolution_summary="Rolled back release 2026.11.21-3",
        ),
        now=at(minute),
        proposed_by=HELPER,
    )
    answer(case, confirmation.confirmation_id, by=OPENER, decision=Decision.YES, now=at(minute))
    return confirmation


def full_case() -> Case:
    """A resolved case with every optional field set and confirmations of several kinds."""
    case = triaged(new_case())
    case.participants = [OPENER, HELPER]
    case.consulting.quick_suggestions = ["Look at the deploy log"]
    case.consulting.consultation_turns = 2
    start_investigating(case)
    _investigate(case)
    _conclude(case)
    resolve(case)
    case.documentation = outcomes.documentation()
    offer = propose(
        case,
        DeliverablesPayload(documents=[DocumentType.INCIDENT_REPORT, DocumentType.RUNBOOK]),
        now=at(61),
        prompt="Shall I write a case report and a runbook?",
        answerable_by=[OPENER],
    )
    assert offer.is_pending
    return case


def _investigate(case: Case) -> None:
    case.current_turn = 7
    case.turns_without_progress = 1
    case.problem_verification = parts.verification()
    case.path_selection = parts.path_selection()
    case.uploaded_files = [parts.uploaded_file()]
    case.evidence_requests = [parts.request()]
    first, second = parts.hypotheses()
    # Deliberately not in id order: the stored document must keep insertion order.
    case.hypotheses = {second.hypothesis_id: second, first.hypothesis_id: first}
    case.evidence = [parts.evidence(first.hypothesis_id, case.evidence_requests[0].request_id)]
    parts.link(first, case.evidence[0].evidence_id)
    case.turn_history = [outcomes.turn(6), outcomes.turn(7)]


def _conclude(case: Case) -> None:
    evidence_id = case.evidence[0].evidence_id
    validated = next(h for h in case.hypotheses.values() if h.status is HypothesisStatus.VALIDATED)
    case.solutions = [outcomes.solution()]
    case.dead_ends = [outcomes.dead_end()]
    case.working_conclusion = outcomes.working_conclusion(evidence_id)
    case.root_cause_conclusion = outcomes.root_cause(validated.hypothesis_id, evidence_id)
    case.progress = outcomes.progress()
    case.degraded_mode = outcomes.degraded()
    case.escalation_state = outcomes.escalation()
    case.confirmations.extend(outcomes.answered_confirmations(case))
