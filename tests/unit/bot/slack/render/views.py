"""View models for the renderer tests: fixed ids and texts, so snapshots are stable."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from domain.engine.present import confirmation_prompt
from domain.engine.summary import Mitigation, Phase, SummaryView
from domain.engine.view import (
    ConfirmationPrompt,
    EscalationOption,
    EscalationView,
    EvidenceView,
    HypothesisView,
    ReplyKind,
    RequestCard,
    RootCauseView,
    SolutionView,
    TurnReply,
)
from domain.investigation.conclusions import ConfidenceLevel
from domain.investigation.evidence_requests import Criticality, EvidenceStatus, RequestCategory
from domain.investigation.hypotheses import HypothesisCategory, HypothesisStatus
from domain.knowledge import (
    Citation,
    Finding,
    FindingKind,
    IngestReport,
    KnowledgeBaseKind,
    ToolStatus,
)
from domain.lifecycle.confirmations import (
    ConfirmationPayload,
    PendingConfirmation,
    ProblemStatementPayload,
)
from domain.lifecycle.special_states import DegradedModeType

AT = datetime(2026, 11, 21, 14, 32, 15, tzinfo=UTC)


def summary(**changes: Any) -> SummaryView:
    base = SummaryView(
        case_id="case_000000000001",
        short_id="FM-7K3Q",
        phase=Phase.ONGOING,
        title="Payments API returns HTTP 500 for ~30% of requests since 14:05 UTC",
        severity="HIGH",
        impact="Checkout fails for about a third of customers",
        started_at=AT,
        cause="The DB connection pool is exhausted",
        cause_confidence=0.7,
        mitigation=Mitigation.PROPOSED,
        mitigation_title="Raise the pool size to 50",
        next_step="{@U0ONCALL} to share: Pool metrics",
        waiting_questions=1,
    )
    return base.model_copy(update=changes)


def request_card() -> RequestCard:
    return RequestCard(
        request_id="req_000000000001",
        label="Pool metrics",
        description="Active vs max connections show whether the pool is saturated",
        category=RequestCategory.METRICS,
        criticality=Criticality.REQUIRED,
        status=EvidenceStatus.PENDING,
        commands=["kubectl exec deploy/payments -- curl -s localhost:9090/metrics | grep pool"],
        file_locations=["/etc/payments/db.yaml"],
        ui_locations=["Grafana › Payments › DB pool"],
        alternatives=["The pool panel of the service dashboard"],
        expected_output="hikaricp_connections_active close to hikaricp_connections_max",
    )


def full_reply() -> TurnReply:
    return TurnReply(
        kind=ReplyKind.ANSWER,
        text="**Every 500 is a pool timeout.** See `payments.log`.\n\nNext: pool metrics.",
        notices=[
            "Withheld 1 suggested command: `kubectl` — it deletes the namespace and everything"
            " in it."
        ],
        evidence_requests=[request_card()],
        hypotheses=[
            HypothesisView(
                hypothesis_id="hyp_1",
                statement="The DB connection pool is exhausted",
                category=HypothesisCategory.CONFIG,
                status=HypothesisStatus.ACTIVE,
                likelihood=0.6,
            ),
            HypothesisView(
                hypothesis_id="hyp_2",
                statement="DNS lookups for the DB host are slow",
                category=HypothesisCategory.NETWORK,
                status=HypothesisStatus.CAPTURED,
                likelihood=0.3,
            ),
        ],
        root_cause=RootCauseView(
            root_cause="Pool size 10 is too small for the 14:00 traffic",
            mechanism="requests wait for a connection and time out after 5 s",
            confidence_score=0.82,
            confidence_level=ConfidenceLevel.CONFIDENT,
            rubric="strong evidence, one gap",
            supporting_evidence=[EvidenceView(evidence_id="ev_1", summary="100/100 active")],
            missing_evidence=["DB server-side connection count"],
        ),
        solutions=[
            SolutionView(
                solution_id="sol_1",
                title="Raise the pool size to 40",
                is_mitigation=True,
                state="proposed",
                immediate_action="Set maximumPoolSize=40",
                commands=["kubectl get configmap payments-db -o yaml"],
                risks=["More DB connections"],
            )
        ],
        citations=[
            Citation(
                kb=KnowledgeBaseKind.CASE,
                source="payments.log",
                line_start=1045,
                line_end=1047,
                timestamp=AT,
            ),
            Citation(kb=KnowledgeBaseKind.GLOBAL, source="DB pool runbook", section="Sizing"),
        ],
        summary=summary(),
    )


def stuck_reply() -> TurnReply:
    return TurnReply(
        kind=ReplyKind.ANSWER,
        text="We are not getting closer.",
        escalation=EscalationView(
            mode=DegradedModeType.LIMITED_DATA,
            reason="the DB metrics can't be obtained",
            recommended=True,
            options=list(EscalationOption),
            share=["Problem: payments 500s", "Blocked: Pool metrics"],
        ),
        summary=summary(stuck=True),
    )


def fault_reply() -> TurnReply:
    return TurnReply(
        kind=ReplyKind.FAULT,
        text="The model did not answer in time, so nothing in the case changed.",
        summary=summary(),
    )


def prompt(payload: ConfirmationPayload | None = None) -> ConfirmationPrompt:
    confirmation = PendingConfirmation(
        confirmation_id="cf_000000000001",
        payload=payload or ProblemStatementPayload(statement="payments API 500s since 14:05"),
        prompt="Is the problem: payments API returns 500s since 14:05?",
    )
    return confirmation_prompt(confirmation)


def ingest_report() -> IngestReport:
    return IngestReport(
        source="payments.log",
        status=ToolStatus.OK,
        lines=2000,
        size_bytes=180_000,
        chunks=120,
        redactions=2,
        first_timestamp=AT,
        last_timestamp=AT.replace(minute=59),
        error_count=37,
        warning_count=4,
        top_messages=[(812, "Connection closed by <*> [preauth]"), (40, "timeout after <*> ms")],
        kind="log",
        findings=[
            Finding(
                kind=FindingKind.PROBLEM,
                severity="ERROR",
                count=37,
                template="HikariPool-1 - Connection is not available, request timed out after <*>",
                example="ERROR HikariPool-1 - Connection is not available, request timed out "
                "after 30000ms",
                first=line_at(812, minute=41),
                last=line_at(1990, minute=59),
                new=True,
            ),
            Finding(
                kind=FindingKind.CHANGED,
                count=2,
                template="maximumPoolSize=<*>",
                example="INFO HikariConfig - maximumPoolSize=10",
                first=line_at(3, minute=32),
                last=line_at(790, minute=40),
                since=line_at(790, minute=40),
                changed="maximumPoolSize=50 → maximumPoolSize=10",
            ),
        ],
    )


def line_at(line: int, *, minute: int) -> Citation:
    """Where a line of payments.log is."""
    return Citation(
        kb=KnowledgeBaseKind.CASE,
        source="payments.log",
        line_start=line,
        line_end=line,
        timestamp=AT.replace(minute=minute),
    )
