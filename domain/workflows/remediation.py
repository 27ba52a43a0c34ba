"""Remediation strategies offered for approval, what approval hands to an executor, and the rules.

A strategy is proposed once and decided once: approved or rejected by a person allowed to answer
the case's questions. Approving one supersedes the others of the same analysis (one remediation at
a time); the executor's result is recorded on the approved strategy.
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Any

from pydantic import AwareDatetime, Field

from domain.base import DomainModel, new_id
from domain.case import Case
from domain.investigation.evidence_requests import (
    AcquisitionGuidance,
    EvidenceRequest,
    RequestCategory,
)
from domain.investigation.guidance import sanitize_guidance
from domain.investigation.verification import ProblemConfirmation
from domain.lifecycle import proposals
from domain.lifecycle.confirmations import Decision, PendingConfirmation, StatusChangePayload
from domain.lifecycle.decisions import answer, is_responder
from domain.lifecycle.responders import ResponderSet
from domain.lifecycle.status import CaseStatus
from domain.people import mention
from domain.workflows.catalog import ParameterValue, RiskLevel, Workflow
from domain.workflows.parameters import filled_steps, filled_verification
from domain.workflows.signals import signal_severity
from domain.workflows.validation import ValidStrategy

MAX_COMMANDS = 3
MAX_EXPECTED = 200
MAX_LABEL = 100
MAX_DESCRIPTION = 500
MAX_STATEMENT = 1000
"""A problem statement's longest (the consulting data's own limit)."""


class StrategyStatus(StrEnum):
    """Lifecycle: proposed → approved → executed | failed; or rejected; or superseded."""

    PROPOSED = "proposed"
    APPROVED = "approved"
    REJECTED = "rejected"
    SUPERSEDED = "superseded"
    EXECUTED = "executed"
    FAILED = "failed"


class ExecutionStatus(StrEnum):
    """What the executor did with an approved workflow."""

    HANDED_OVER = "handed_over"
    """No automation: the exact steps were posted for a person to run."""
    ACCEPTED = "accepted"
    """The automation endpoint accepted the request."""
    FAILED = "failed"
    """The automation endpoint refused the request or could not be reached."""


class ExecutionResult(DomainModel):
    """The executor's report."""

    executor: str
    status: ExecutionStatus
    summary: str
    steps: list[str] = Field(default_factory=list)
    http_status: int | None = None
    response_excerpt: str | None = None
    at: AwareDatetime


class RemediationStrategy(DomainModel):
    """One validated strategy offered in a case thread with Approve / Reject."""

    strategy_id: str = Field(default_factory=lambda: new_id("rem"))
    case_id: str
    team_id: str
    batch_id: str
    """The analysis that proposed it (its strategies are offered together)."""
    rank: int = Field(ge=1)
    workflow_id: str
    version: str
    title: str
    confidence: float = Field(ge=0.0, le=1.0)
    estimated_risk: RiskLevel
    rationale: str
    parameters: dict[str, ParameterValue] = Field(default_factory=dict)
    status: StrategyStatus = StrategyStatus.PROPOSED
    proposed_at: AwareDatetime
    decided_by: str | None = None
    decided_at: AwareDatetime | None = None
    execution: ExecutionResult | None = None

    @property
    def is_open(self) -> bool:
        """Still waiting for a decision."""
        return self.status is StrategyStatus.PROPOSED


class ExecutionRequest(DomainModel):
    """What approval hands to the executor: the workflow, its values, who approved and when."""

    strategy_id: str
    case_id: str
    team_id: str
    workflow: Workflow
    parameters: dict[str, ParameterValue]
    steps: list[str]
    """The workflow's steps with the approved values in place."""
    approved_by: str
    approved_at: AwareDatetime

    def payload(self) -> dict[str, Any]:
        """The JSON body an automation endpoint receives."""
        return {
            "strategy_id": self.strategy_id,
            "case_id": self.case_id,
            "team_id": self.team_id,
            "workflow_id": self.workflow.workflow_id,
            "version": self.workflow.version,
            "title": self.workflow.title,
            "parameters": self.parameters,
            "steps": self.steps,
            "approved_by": self.approved_by,
            "approved_at": self.approved_at.isoformat(),
        }


def propose(
    strategies: list[ValidStrategy], *, case: Case, batch_id: str, now: datetime
) -> list[RemediationStrategy]:
    """The validated strategies as proposals, ranked as validated."""
    return [
        RemediationStrategy(
            case_id=case.case_id,
            team_id=case.team_id,
            batch_id=batch_id,
            rank=rank,
            workflow_id=valid.workflow.workflow_id,
            version=valid.workflow.version,
            title=valid.workflow.title,
            confidence=valid.reply.confidence,
            estimated_risk=RiskLevel(valid.reply.estimated_risk),
            rationale=valid.reply.rationale.strip(),
            parameters=valid.parameters,
            proposed_at=now,
        )
        for rank, valid in enumerate(strategies, 1)
    ]


def may_decide(case: Case, user_id: str, *, responders: ResponderSet | None) -> bool:
    """Approval is restricted like confirmations: configured responders, else participants."""
    return is_responder(case, user_id, responders=responders)


def execution_request(
    strategy: RemediationStrategy, workflow: Workflow, *, by: str, at: datetime
) -> ExecutionRequest:
    """The request for an approved strategy."""
    return ExecutionRequest(
        strategy_id=strategy.strategy_id,
        case_id=strategy.case_id,
        team_id=strategy.team_id,
        workflow=workflow,
        parameters=strategy.parameters,
        steps=filled_steps(workflow, strategy.parameters),
        approved_by=by,
        approved_at=at,
    )


def outcome_status(result: ExecutionResult) -> StrategyStatus:
    """The strategy's status once the executor reported."""
    failed = result.status is ExecutionStatus.FAILED
    return StrategyStatus.FAILED if failed else StrategyStatus.EXECUTED


def verification_request(
    strategy: RemediationStrategy, workflow: Workflow, *, turn: int
) -> EvidenceRequest:
    """Ask for proof that the remediation worked, with the workflow's read-only checks."""
    commands = filled_verification(workflow, strategy.parameters)
    guidance = AcquisitionGuidance(
        commands=commands[:MAX_COMMANDS],
        expected_output=(workflow.success_criteria or "")[:MAX_EXPECTED] or None,
    )
    label = f"Did “{workflow.title}” work?"
    description = (
        f"{workflow.title} was approved for this case. Share what the system looks like now, so we "
        "know whether the remediation fixed the problem."
    )
    return EvidenceRequest(
        label=label[:MAX_LABEL],
        description=description[:MAX_DESCRIPTION],
        category=RequestCategory.SYMPTOMS,
        guidance=sanitize_guidance(guidance).guidance,
        created_at_turn=turn,
        metadata={"strategy_id": strategy.strategy_id, "purpose": "remediation_verification"},
    )


def approval_confirms_problem(
    case: Case, strategy: RemediationStrategy, *, now: datetime
) -> PendingConfirmation | None:
    """The approver's Approve is a person's Yes: to the alert as the problem, and to acting on it.

    A case an alert opened is still being described (consulting) when its remediation is
    approved; the approval starts its investigation, so what people share next is matched to the
    evidence requests as in any case. It is recorded like any answered question: a status change
    proposed and answered Yes by the approver alone, the transition naming them and the workflow
    they approved. The problem statement, unless one was confirmed, is the alert itself (what
    they acted on). Nothing happens for a case already investigating or finished.
    """
    by = strategy.decided_by
    if by is None or case.status is not CaseStatus.CONSULTING:
        return None
    consulting = case.consulting
    if not consulting.problem_statement_confirmed:
        consulting.proposed_problem_statement = (case.title or strategy.title)[:MAX_STATEMENT]
    if consulting.problem_confirmation is None:
        severity = signal_severity(case.alert.severity if case.alert else None)
        consulting.problem_confirmation = ProblemConfirmation(
            problem_type="alert",
            severity_guess=severity.value.upper() if severity else "UNKNOWN",
            created_at=now,
        )
    payload = StatusChangePayload(
        to_status=CaseStatus.INVESTIGATING,
        reason=f"{mention(by)} approved the remediation “{strategy.title}” for this alert",
    )
    asked = proposals.propose(
        case,
        payload,
        now=now,
        prompt=f"Approve “{strategy.title}”?",
        proposed_by=by,
        answerable_by=[by],
    )
    answer(case, asked.confirmation_id, by=by, decision=Decision.YES, now=now)
    return asked
