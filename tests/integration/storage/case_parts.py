"""Problem context and investigation parts of a fully populated case."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

from domain.investigation.evidence import (
    CompletenessLevel,
    Evidence,
    EvidenceCategory,
    EvidenceClassification,
    EvidenceForm,
    EvidenceSourceType,
    EvidenceStance,
    EvidenceType,
    UploadedFile,
    UserIntent,
)
from domain.investigation.evidence_requests import (
    AcquisitionGuidance,
    Criticality,
    EvidenceRequest,
    EvidenceStatus,
    RequestCategory,
)
from domain.investigation.hypotheses import (
    EvidenceRequirement,
    Hypothesis,
    HypothesisCategory,
    HypothesisEvidenceLink,
    HypothesisGenerationMode,
    HypothesisStatus,
)
from domain.investigation.verification import (
    Change,
    Correlation,
    InvestigationPath,
    PathSelection,
    ProblemVerification,
    TemporalState,
    UrgencyLevel,
)

NOW = datetime(2026, 11, 21, 14, 5, 7, 123456, tzinfo=UTC)
BERLIN = timezone(timedelta(hours=1))
OPENER = "U_OPENER"
HELPER = "U_HELPER"
STATEMENT = "Payments API returns HTTP 500 for 30% of requests since 14:05 UTC"


def at(minutes: int) -> datetime:
    """A moment ``minutes`` after NOW."""
    return NOW + timedelta(minutes=minutes)


def verification() -> ProblemVerification:
    """Verified problem facts, including changes and correlations."""
    return ProblemVerification(
        symptom_statement=STATEMENT,
        symptom_indicators=["HTTP 500", "p99 latency 4s"],
        affected_services=["payments-api"],
        affected_users="EU customers",
        affected_regions=["eu-west-1"],
        severity="HIGH",
        user_impact="checkouts fail",
        started_at=at(-30).astimezone(BERLIN),
        noticed_at=at(-20),
        resolved_naturally_at=at(100),
        duration=timedelta(hours=1, minutes=30, seconds=5),
        temporal_state=TemporalState.ONGOING,
        recent_changes=[
            Change(
                description="release 2026.11.21-3",
                occurred_at=at(-32),
                change_type="deployment",
                change_id="PR-4411",
                changed_by="U_DEPLOYER",
            )
        ],
        correlations=[
            Correlation(
                change_description="release 2026.11.21-3",
                timing_description="2 minutes before",
                confidence=0.8,
                correlation_type="causal",
            )
        ],
        correlation_confidence=0.8,
        urgency_level=UrgencyLevel.HIGH,
        urgency_factors=["revenue impact"],
        verified_at=at(3),
        verification_confidence=0.9,
    )


def path_selection() -> PathSelection:
    """The mitigation-first path, chosen by the matrix."""
    return PathSelection(
        path=InvestigationPath.MITIGATION_FIRST,
        auto_selected=True,
        rationale="Ongoing high issue: stop the impact first.",
        alternate_path=InvestigationPath.ROOT_CAUSE,
        selected_at=at(3),
        selected_by="system",
        temporal_state=TemporalState.ONGOING,
        urgency_level=UrgencyLevel.HIGH,
    )


def uploaded_file() -> UploadedFile:
    """The uploaded application log."""
    return UploadedFile(
        file_id="file_app_log",
        filename="app.log",
        content_type="text/plain",
        size_bytes=123_456,
        uploaded_at=at(4),
        uploaded_by=OPENER,
        source_ref="F0123ABC",
        line_count=2048,
        redactions=3,
    )


def request() -> EvidenceRequest:
    """A completed evidence request with full acquisition guidance."""
    return EvidenceRequest(
        request_id="req_logs",
        label="Error logs",
        description="The payments-api error log around 14:05",
        category=RequestCategory.SYMPTOMS,
        guidance=AcquisitionGuidance(
            commands=["kubectl logs deploy/payments-api --since=1h"],
            file_locations=["/var/log/payments/app.log"],
            ui_locations=["Grafana > Payments > Errors"],
            alternatives=["Loki: {app='payments'} |= 'ERROR'"],
            prerequisites=["cluster read role"],
            expected_output="stack traces with ConnectionPoolTimeout",
        ),
        criticality=Criticality.REQUIRED,
        status=EvidenceStatus.COMPLETE,
        created_at_turn=2,
        updated_at_turn=3,
        completeness=0.9,
        metadata={"asked_in": "1700000000.000300", "nested": {"tries": [1, 2]}},
    )


def hypotheses() -> tuple[Hypothesis, Hypothesis]:
    """A validated and a refuted hypothesis."""
    first = Hypothesis(
        hypothesis_id="hyp_pool",
        statement="The new release shrank the DB connection pool",
        category=HypothesisCategory.CONFIG,
        status=HypothesisStatus.VALIDATED,
        likelihood=0.85,
        evidence_requirements=[
            EvidenceRequirement(
                description="pool size in the release config",
                evidence_type="config",
                acquisition_guidance="git show release:config/db.yaml",
                criticality="required",
            )
        ],
        generated_at_turn=3,
        generation_mode=HypothesisGenerationMode.SYSTEMATIC,
        rationale="timing matches the deploy",
        tested_at=at(20),
        concluded_at=at(25),
    )
    second = Hypothesis(
        hypothesis_id="hyp_network",
        statement="Packet loss between the API and the database",
        category=HypothesisCategory.NETWORK,
        status=HypothesisStatus.REFUTED,
        likelihood=0.1,
        refuting_evidence=["ev_logs"],
        generated_at_turn=4,
        generation_mode=HypothesisGenerationMode.FORCED_ALTERNATIVE,
        rationale="alternative category",
        tested_at=at(21),
        concluded_at=at(22),
    )
    return first, second


def link(hypothesis: Hypothesis, evidence_id: str) -> None:
    """Link the evidence to the hypothesis as strong support."""
    hypothesis.supporting_evidence.append(evidence_id)
    hypothesis.evidence_links[evidence_id] = HypothesisEvidenceLink(
        hypothesis_id=hypothesis.hypothesis_id,
        evidence_id=evidence_id,
        stance=EvidenceStance.STRONGLY_SUPPORTS,
        reasoning="pool exhaustion errors start with the release",
        completeness=0.9,
        analyzed_at=at(20),
    )


def evidence(hypothesis_id: str, request_id: str) -> Evidence:
    """Classified log evidence testing a hypothesis."""
    return Evidence(
        evidence_id="ev_logs",
        category=EvidenceCategory.CAUSAL_EVIDENCE,
        primary_purpose=hypothesis_id,
        summary="ConnectionPoolTimeout from 14:05:12",
        content_ref="file_app_log",
        analysis="Every 500 is preceded by a pool timeout",
        source_type=EvidenceSourceType.LOG_FILE,
        form=EvidenceForm.DOCUMENT,
        tests_hypothesis_id=hypothesis_id,
        stance=EvidenceStance.STRONGLY_SUPPORTS,
        advances_milestones=["root_cause_identified"],
        collected_at=at(5),
        collected_by=OPENER,
        collected_at_turn=3,
        fulfills_request_id=request_id,
        addresses_requests=[request_id],
        classification=EvidenceClassification(
            matched_request_ids=[request_id],
            completeness=CompletenessLevel.COMPLETE,
            completeness_score=0.9,
            form=EvidenceForm.DOCUMENT,
            evidence_type=EvidenceType.SUPPORTIVE,
            user_intent=UserIntent.PROVIDING_EVIDENCE,
            rationale="the log answers the request",
            follow_up_needed="the pool size before the release",
        ),
        key_findings=["app.log:1045 pool timeout"],
        disputed=True,
    )
