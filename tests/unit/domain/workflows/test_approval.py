"""Approving a remediation is the approver's Yes to the alert as the problem: an alert's case
still being described starts its investigation, recorded like any question a person answered."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from domain.case import ALERT_OPENER, AlertFacts, Case
from domain.investigation.verification import ProblemConfirmation
from domain.lifecycle.confirmations import (
    ConfirmationKind,
    ConfirmationState,
    Decision,
    ProblemStatementPayload,
)
from domain.lifecycle.proposals import propose
from domain.lifecycle.status import CaseStatus
from domain.people import mention
from domain.workflows.catalog import RiskLevel
from domain.workflows.remediation import RemediationStrategy, approval_confirms_problem

T0 = datetime(2026, 11, 21, 14, 0, tzinfo=UTC)
LATER = T0 + timedelta(minutes=12)
ONCALL = "U0ONCALL"
TITLE = "KubePodCrashLooping: Pod is crash looping."


def alert_case() -> Case:
    return Case(
        team_id="T1",
        channel_id="C1",
        thread_ts="1.1",
        user_id=ALERT_OPENER,
        title=TITLE,
        alert=AlertFacts(firing_since=T0, severity="warning"),
        created_at=T0,
        updated_at=T0,
    )


def approved(case: Case, by: str | None = ONCALL) -> RemediationStrategy:
    return RemediationStrategy(
        case_id=case.case_id,
        team_id=case.team_id,
        batch_id="rca_1",
        rank=1,
        workflow_id="restart-crashlooping-deployment",
        version="1.0.0",
        title="Restart a crash-looping deployment",
        confidence=0.8,
        estimated_risk=RiskLevel.LOW,
        rationale="the pods crash on start",
        proposed_at=T0,
        decided_by=by,
        decided_at=LATER if by else None,
    )


def test_the_approval_starts_the_investigation_in_the_approvers_name() -> None:
    case = alert_case()

    asked = approval_confirms_problem(case, approved(case), now=LATER)

    assert asked is not None
    assert case.status is CaseStatus.INVESTIGATING
    [moved] = case.status_history
    assert (moved.from_status, moved.to_status) == (CaseStatus.CONSULTING, CaseStatus.INVESTIGATING)
    assert (moved.triggered_by, moved.triggered_at) == (ONCALL, LATER)
    assert moved.reason == (
        f"{mention(ONCALL)} approved the remediation “Restart a crash-looping deployment” "
        "for this alert"
    )
    assert moved.confirmation_id == asked.confirmation_id
    assert asked.kind is ConfirmationKind.STATUS_CHANGE
    assert asked.answerable_by == [ONCALL]
    assert (asked.state, asked.decision, asked.answered_by) == (
        ConfirmationState.ACCEPTED,
        Decision.YES,
        ONCALL,
    )
    consulting = case.consulting
    assert consulting.proposed_problem_statement == TITLE, "the alert is the problem"
    assert consulting.problem_statement_confirmed
    assert consulting.decided_to_investigate
    assert consulting.problem_confirmation is not None
    assert consulting.problem_confirmation.severity_guess == "MEDIUM", "the alert's warning"
    assert case.problem_verification is not None
    assert case.problem_verification.symptom_statement == TITLE


def test_a_statement_only_proposed_gives_way_and_its_question_is_withdrawn() -> None:
    case = alert_case()
    case.consulting.problem_confirmation = ProblemConfirmation(
        problem_type="crash", severity_guess="HIGH", created_at=T0
    )
    pending = propose(case, ProblemStatementPayload(statement="payments pods restart"), now=T0)

    approval_confirms_problem(case, approved(case), now=LATER)

    assert pending.state is ConfirmationState.SUPERSEDED
    assert case.consulting.proposed_problem_statement == TITLE
    triage = case.consulting.problem_confirmation
    assert triage is not None
    assert triage.severity_guess == "HIGH", "the triage is kept"


def test_nothing_changes_without_a_person_or_once_the_case_investigates() -> None:
    undecided = alert_case()
    investigating = alert_case()
    approval_confirms_problem(investigating, approved(investigating), now=T0)
    history = list(investigating.status_history)

    assert approval_confirms_problem(undecided, approved(undecided, by=None), now=LATER) is None
    assert undecided.status is CaseStatus.CONSULTING
    assert undecided.confirmations == []
    assert approval_confirms_problem(investigating, approved(investigating), now=LATER) is None
    assert investigating.status_history == history
