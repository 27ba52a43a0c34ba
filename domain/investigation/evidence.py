"""Evidence collected in a case and the five-dimension classification of each user input."""

from __future__ import annotations

from collections.abc import Iterable
from enum import StrEnum

from pydantic import AwareDatetime, Field

from domain.base import DomainModel, new_id, utc_now
from domain.investigation.progress import VERIFICATION_MILESTONES, InvestigationProgress
from domain.knowledge import Finding


class EvidenceCategory(StrEnum):
    """Purpose of a piece of evidence; inferred by the system, never by the model."""

    SYMPTOM_EVIDENCE = "symptom_evidence"
    CAUSAL_EVIDENCE = "causal_evidence"
    RESOLUTION_EVIDENCE = "resolution_evidence"
    OTHER = "other"


CATEGORY_MILESTONES: dict[EvidenceCategory, frozenset[str]] = {
    EvidenceCategory.SYMPTOM_EVIDENCE: frozenset(VERIFICATION_MILESTONES),
    EvidenceCategory.CAUSAL_EVIDENCE: frozenset({"root_cause_identified"}),
    EvidenceCategory.RESOLUTION_EVIDENCE: frozenset({"solution_verified"}),
    EvidenceCategory.OTHER: frozenset(),
}


class EvidenceSourceType(StrEnum):
    """Where the evidence came from."""

    LOG_FILE = "log_file"
    METRICS_DATA = "metrics_data"
    CONFIG_FILE = "config_file"
    CODE_REVIEW = "code_review"
    SCREENSHOT = "screenshot"
    COMMAND_OUTPUT = "command_output"
    DATABASE_QUERY = "database_query"
    TRACE_DATA = "trace_data"
    API_RESPONSE = "api_response"
    USER_REPORT = "user_report"
    MONITORING_ALERT = "monitoring_alert"
    OTHER = "other"


class EvidenceForm(StrEnum):
    """Text typed in the thread, or an uploaded document."""

    USER_INPUT = "user_input"
    DOCUMENT = "document"


class EvidenceStance(StrEnum):
    """How a piece of evidence bears on one hypothesis."""

    STRONGLY_SUPPORTS = "strongly_supports"
    SUPPORTS = "supports"
    NEUTRAL = "neutral"
    CONTRADICTS = "contradicts"
    STRONGLY_CONTRADICTS = "strongly_contradicts"
    IRRELEVANT = "irrelevant"


SUPPORTING_STANCES = frozenset({EvidenceStance.STRONGLY_SUPPORTS, EvidenceStance.SUPPORTS})
CONTRADICTING_STANCES = frozenset({EvidenceStance.CONTRADICTS, EvidenceStance.STRONGLY_CONTRADICTS})


class CompletenessLevel(StrEnum):
    """How well an input answers the request(s) it matches."""

    PARTIAL = "partial"
    COMPLETE = "complete"
    OVER_COMPLETE = "over_complete"
    """Satisfies more than one request at once (several matched ids, not a score above 1)."""


class EvidenceType(StrEnum):
    """Evidential value of an input."""

    SUPPORTIVE = "supportive"
    REFUTING = "refuting"
    NEUTRAL = "neutral"
    ABSENCE = "absence"


class UserIntent(StrEnum):
    """What the person meant to do with their input."""

    PROVIDING_EVIDENCE = "providing_evidence"
    ASKING_QUESTION = "asking_question"
    REPORTING_UNAVAILABLE = "reporting_unavailable"
    REPORTING_STATUS = "reporting_status"
    CLARIFYING = "clarifying"
    OFF_TOPIC = "off_topic"


class EvidenceClassification(DomainModel):
    """The five dimensions: request matching, completeness, form, type and intent."""

    matched_request_ids: list[str] = Field(default_factory=list)
    """Ids of the open evidence requests this input addresses (zero or more)."""
    completeness: CompletenessLevel
    completeness_score: float = Field(ge=0.0, le=1.0)
    """0.3-0.7 partial, 0.8-1.0 complete; each matched request keeps its own 0-1 score."""
    form: EvidenceForm
    evidence_type: EvidenceType
    user_intent: UserIntent
    rationale: str
    follow_up_needed: str | None = None


class Evidence(DomainModel):
    """A piece of objective data the case holds, with its system-inferred purpose."""

    evidence_id: str = Field(default_factory=lambda: new_id("ev"))
    category: EvidenceCategory
    primary_purpose: str
    """What this evidence validates (a milestone or a hypothesis)."""
    summary: str = Field(max_length=500)
    content_ref: str
    """Where the content lives: an uploaded file id, a message ts, a command output."""
    analysis: str | None = None
    source_type: EvidenceSourceType
    form: EvidenceForm
    tests_hypothesis_id: str | None = None
    stance: EvidenceStance | None = None
    advances_milestones: list[str] = Field(default_factory=list)
    collected_at: AwareDatetime = Field(default_factory=utc_now)
    collected_by: str
    collected_at_turn: int = Field(ge=0)
    fulfills_request_id: str | None = None
    addresses_requests: list[str] = Field(default_factory=list)
    classification: EvidenceClassification | None = None
    key_findings: list[str] = Field(default_factory=list)
    disputed: bool = False
    """A person disputed this evidence when it refuted a hypothesis; treat it as uncertain."""


def infer_evidence_category(
    *, tests_hypothesis_id: str | None, progress: InvestigationProgress
) -> EvidenceCategory:
    """Infer the purpose from context: hypothesis link, verification state, solution state."""
    if tests_hypothesis_id is not None:
        return EvidenceCategory.CAUSAL_EVIDENCE
    if not progress.verification_complete:
        return EvidenceCategory.SYMPTOM_EVIDENCE
    if progress.solution_proposed:
        return EvidenceCategory.RESOLUTION_EVIDENCE
    return EvidenceCategory.OTHER


def milestones_advanced_by(category: EvidenceCategory, newly_completed: Iterable[str]) -> list[str]:
    """Milestones completed this turn that evidence of this category can advance."""
    allowed = CATEGORY_MILESTONES[category]
    return [name for name in newly_completed if name in allowed]


class UploadedFile(DomainModel):
    """Metadata of a file shared into the case (the content lives in storage and the index)."""

    file_id: str = Field(default_factory=lambda: new_id("file"))
    filename: str
    content_type: str = "text/plain"
    size_bytes: int = Field(ge=0)
    uploaded_at: AwareDatetime = Field(default_factory=utc_now)
    uploaded_by: str
    source_ref: str | None = None
    """The Slack file id (or local path in the console surface)."""
    line_count: int | None = Field(default=None, ge=0)
    redactions: int = Field(default=0, ge=0)
    findings: list[Finding] = Field(default_factory=list)
    """What stood out in it when it was read (without the lines around each), for later turns."""
