"""Builders for domain tests: cases in each state, reached through the real rules."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from domain.case import Case
from domain.investigation.conclusions import Solution, SolutionType
from domain.investigation.evidence import (
    Evidence,
    EvidenceCategory,
    EvidenceForm,
    EvidenceSourceType,
)
from domain.investigation.evidence_requests import EvidenceRequest, RequestCategory
from domain.investigation.hypotheses import Hypothesis, HypothesisCategory, HypothesisStatus
from domain.investigation.verification import ProblemConfirmation
from domain.lifecycle.confirmations import Decision, ProblemStatementPayload
from domain.lifecycle.decisions import answer
from domain.lifecycle.proposals import propose

NOW = datetime(2026, 11, 21, 3, 0, tzinfo=UTC)
OPENER = "U_OPENER"
STATEMENT = "Payments API returns HTTP 500 for 30% of requests since 14:05 UTC"


def later(minutes: int = 1) -> datetime:
    """A moment after NOW."""
    return NOW + timedelta(minutes=minutes)


def new_case(**fields: object) -> Case:
    """A fresh consulting case opened by OPENER."""
    base: dict[str, object] = {
        "team_id": "T1",
        "channel_id": "C1",
        "thread_ts": "1700000000.000100",
        "user_id": OPENER,
        "title": "payments 500s",
        "created_at": NOW,
        "updated_at": NOW,
    }
    base.update(fields)
    return Case.model_validate(base)


def answer_yes(
    case: Case, cf: object, by: str = OPENER, decision: Decision = Decision.YES
) -> object:
    """Answer a confirmation a minute after NOW."""
    return answer(case, cf.confirmation_id, by=by, decision=decision, now=later())  # type: ignore[attr-defined]


def triaged_case() -> Case:
    """A consulting case whose problem is triaged and formalised, awaiting confirmation."""
    case = new_case()
    case.consulting.problem_confirmation = ProblemConfirmation(
        problem_type="error", severity_guess="HIGH", created_at=NOW
    )
    case.consulting.proposed_problem_statement = STATEMENT
    return case


def investigating_case() -> Case:
    """A case moved to investigating by the opener confirming the statement."""
    case = triaged_case()
    cf = propose(case, ProblemStatementPayload(statement=STATEMENT), now=NOW)
    answer(case, cf.confirmation_id, by=OPENER, decision=Decision.YES, now=NOW)
    return case


def add_solution(case: Case, *, mitigation: bool = False, title: str = "Roll back") -> Solution:
    """Attach a proposed solution."""
    solution = Solution(
        solution_type=SolutionType.ROLLBACK, title=title, is_mitigation=mitigation, proposed_at=NOW
    )
    case.solutions.append(solution)
    case.progress.solution_proposed = True
    return solution


def add_evidence(
    case: Case, *, category: EvidenceCategory = EvidenceCategory.SYMPTOM_EVIDENCE
) -> Evidence:
    """Attach a piece of evidence collected this turn."""
    evidence = Evidence(
        category=category,
        primary_purpose="symptom_verified",
        summary="500s in app.log",
        content_ref="file_1",
        source_type=EvidenceSourceType.LOG_FILE,
        form=EvidenceForm.DOCUMENT,
        collected_by=OPENER,
        collected_at_turn=case.current_turn,
        collected_at=NOW,
    )
    case.evidence.append(evidence)
    return evidence


def add_hypothesis(
    case: Case,
    *,
    category: HypothesisCategory = HypothesisCategory.CONFIG,
    status: HypothesisStatus = HypothesisStatus.ACTIVE,
) -> Hypothesis:
    """Attach a hypothesis."""
    hypothesis = Hypothesis(
        statement=f"{category} problem",
        category=category,
        status=status,
        likelihood=0.5,
        generated_at_turn=case.current_turn,
    )
    case.hypotheses[hypothesis.hypothesis_id] = hypothesis
    return hypothesis


def add_request(case: Case, *, label: str = "Error logs") -> EvidenceRequest:
    """Attach a pending evidence request."""
    request = EvidenceRequest(
        label=label,
        description="Need the error logs to see the failing calls",
        category=RequestCategory.SYMPTOMS,
        created_at_turn=case.current_turn,
    )
    case.evidence_requests.append(request)
    return request
