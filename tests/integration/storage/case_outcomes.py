"""Outcome parts of a fully populated case: fixes, conclusions, special states, documents."""

from __future__ import annotations

from domain.case import Case
from domain.investigation.conclusions import (
    AlternativeExplanation,
    DeadEnd,
    RootCauseConclusion,
    Solution,
    SolutionType,
    WorkingConclusion,
)
from domain.investigation.progress import InvestigationProgress
from domain.investigation.turns import TurnOutcome, TurnProgress
from domain.investigation.verification import (
    InvestigationPath,
)
from domain.lifecycle.confirmations import (
    ConfirmationState,
    Decision,
    PathChoicePayload,
    PendingConfirmation,
    RefutationPayload,
    SolutionAppliedPayload,
)
from domain.lifecycle.special_states import (
    DegradedMode,
    DegradedModeType,
    DocumentationData,
    DocumentType,
    EscalationState,
    EscalationType,
    GeneratedDocument,
    ResolutionArtifacts,
)
from tests.integration.storage.case_parts import HELPER, OPENER, at


def solution() -> Solution:
    """An applied and verified rollback."""
    return Solution(
        solution_id="sol_rollback",
        solution_type=SolutionType.ROLLBACK,
        title="Roll back release 2026.11.21-3",
        immediate_action="helm rollback payments 41",
        longterm_fix="Restore pool size 50 and add a config test",
        is_mitigation=True,
        implementation_steps=["roll back", "watch error rate"],
        commands=["helm history payments"],
        risks=["loses the new feature flag"],
        proposed_at=at(30),
        proposed_by="agent",
        applied_at=at(35),
        applied_by=HELPER,
        verified_at=at(45),
        verified_by=OPENER,
        verification_method="error rate dashboard",
        verification_evidence_id="ev_logs",
        effectiveness=0.95,
    )


def dead_end() -> DeadEnd:
    """The ruled-out network explanation."""
    return DeadEnd(
        hypothesis="Packet loss between the API and the database",
        evidence_checked=["ev_logs"],
        why_ruled_out="no retransmits on the node",
        turn_number=4,
        confidence_eliminated=0.9,
    )


def working_conclusion(evidence_id: str) -> WorkingConclusion:
    """The working conclusion before the root cause."""
    return WorkingConclusion(
        statement="The release shrank the pool",
        confidence=0.8,
        reasoning="errors start with the release",
        supporting_evidence_ids=[evidence_id],
        caveats=["pool metrics missing"],
        updated_at=at(24),
        supersedes_conclusion_at=at(15),
    )


def root_cause(hypothesis_id: str, evidence_id: str) -> RootCauseConclusion:
    """The root cause with alternatives."""
    return RootCauseConclusion(
        root_cause="Release 2026.11.21-3 set the DB pool size to 5",
        confidence_score=0.92,
        mechanism="requests wait for a connection and time out",
        evidence_basis=[evidence_id],
        missing_evidence=["pool metrics"],
        alternative_explanations=[
            AlternativeExplanation(
                hypothesis="network", confidence=0.05, why_less_likely="no retransmits"
            )
        ],
        caveats=["single region observed"],
        contributing_factors=["no config test"],
        validated_hypothesis_id=hypothesis_id,
        determined_at=at(25),
        determined_by="agent",
    )


def progress() -> InvestigationProgress:
    """Milestones of a mitigated investigation."""
    return InvestigationProgress(
        symptom_verified=True,
        scope_assessed=True,
        timeline_established=True,
        changes_identified=True,
        root_cause_identified=True,
        root_cause_confidence=0.92,
        root_cause_method="hypothesis_validation",
        solution_proposed=True,
        solution_applied=True,
        solution_verified=False,
        mitigation_applied=True,
    )


def degraded() -> DegradedMode:
    """A degraded-mode episode that ended."""
    return DegradedMode(
        mode_type=DegradedModeType.LIMITED_DATA,
        entered_at=at(10),
        reason="pool metrics are not exported",
        attempted_actions=["asked for metrics"],
        fallback_offered="best guess, escalate or close",
        user_choice="best guess",
        escalation_recommended=True,
        exited_at=at(20),
        exit_reason="progress again",
    )


def escalation() -> EscalationState:
    """A resolved escalation to the DBA."""
    return EscalationState(
        escalation_type=EscalationType.PERMISSIONS_REQUIRED,
        reason="needs DB admin access",
        escalated_to="U_DBA",
        escalated_at=at(11),
        context_summary="pool exhaustion suspected",
        key_findings=["pool timeouts"],
        resolution="DBA confirmed pool size 5",
        resolved_at=at(19),
    )


def documentation() -> DocumentationData:
    """Lessons and a generated incident report."""
    return DocumentationData(
        documents_generated=[
            GeneratedDocument(
                document_id="doc_report",
                document_type=DocumentType.INCIDENT_REPORT,
                title="Payments 500s on 2026-11-21",
                content_ref="kb://reports/doc_report.md",
                generated_at=at(62),
                format="markdown",
                size_bytes=4096,
            )
        ],
        runbook_entry="Check pool size after every release",
        post_mortem_id="PM-12",
        lessons_learned=["test config changes"],
        what_went_well=["fast rollback"],
        what_could_improve=["pool metrics"],
        preventive_measures=["config test"],
        monitoring_recommendations=["alert on pool wait time"],
        artifacts=ResolutionArtifacts(
            case_report_offered=True,
            runbook_offered=True,
            runbook_exists=False,
            requested=[DocumentType.INCIDENT_REPORT],
            declined=False,
            case_report_generated="doc_report",
            runbook_generated=None,
        ),
        generated_at=at(62),
        generated_by="agent",
    )


def turn(number: int) -> TurnProgress:
    """A turn that made progress."""
    return TurnProgress(
        turn_number=number,
        timestamp=at(number * 5),
        milestones_completed=["root_cause_identified"],
        evidence_added=["ev_logs"],
        hypotheses_generated=["hyp_network"],
        hypotheses_validated=["hyp_pool"],
        solutions_proposed=["sol_rollback"],
        progress_made=True,
        actions_taken=["asked for logs"],
        outcome=TurnOutcome.MILESTONE_COMPLETED,
        user_message_summary="uploaded app.log",
        agent_response_summary="pool exhaustion found",
    )


def answered_confirmations(case: Case) -> list[PendingConfirmation]:
    """Path choice (accepted), refutation (rejected), solution applied (pending)."""
    path = PendingConfirmation(
        payload=PathChoicePayload(
            path=InvestigationPath.MITIGATION_FIRST, alternate=InvestigationPath.ROOT_CAUSE
        ),
        prompt="Mitigate first?",
        answerable_by=[OPENER, HELPER],
        state=ConfirmationState.ACCEPTED,
        proposed_at=at(3),
        proposed_by="system",
        proposed_at_turn=2,
        answered_at=at(4),
        answered_by=HELPER,
        decision=Decision.YES,
    )
    refutation = PendingConfirmation(
        payload=RefutationPayload(
            hypothesis_ids=["hyp_network"], evidence_id="ev_logs", explanation="no packet loss"
        ),
        prompt="The logs contradict the network hypothesis. Refute it?",
        state=ConfirmationState.REJECTED,
        proposed_at=at(21),
        proposed_at_turn=4,
        answered_at=at(22),
        answered_by=OPENER,
        decision=Decision.NO,
    )
    applied = PendingConfirmation(
        payload=SolutionAppliedPayload(solution_id=case.solutions[0].solution_id),
        prompt="Did you roll back?",
        proposed_at=at(31),
        proposed_at_turn=6,
    )
    return [path, refutation, applied]
