"""Special states of a case: degraded mode, escalation, and the documentation it produces."""

from __future__ import annotations

from enum import StrEnum

from pydantic import AwareDatetime, Field

from domain.base import DomainModel, new_id, utc_now


class DegradedModeType(StrEnum):
    """Why the investigation is struggling."""

    NO_PROGRESS = "no_progress"
    LIMITED_DATA = "limited_data"
    HYPOTHESIS_DEADLOCK = "hypothesis_deadlock"
    EXTERNAL_DEPENDENCY = "external_dependency"
    OTHER = "other"


class WayOut(StrEnum):
    """The ways out of a stuck investigation, each a button under the one message saying so."""

    BEST_GUESS = "best_guess"
    ESCALATE = "escalate"
    NEW_CATEGORY = "new_category"
    CLOSE = "close"

    @property
    def label(self) -> str:
        """How people read it (a button, the summary's line)."""
        return WAY_OUT_LABELS[self]


WAY_OUT_LABELS = {
    WayOut.BEST_GUESS: "Proceed with the best guess",
    WayOut.ESCALATE: "Escalate",
    WayOut.NEW_CATEGORY: "Try another kind of explanation",
    WayOut.CLOSE: "Close the case",
}


class DegradedMode(DomainModel):
    """The investigation is blocked; the agent offers fallbacks (best guess, escalate, close)."""

    mode_type: DegradedModeType
    entered_at: AwareDatetime = Field(default_factory=utc_now)
    reason: str
    attempted_actions: list[str] = Field(default_factory=list)
    fallback_offered: str | None = None
    user_choice: str | None = None
    escalation_recommended: bool = False
    """Set when critical evidence is blocked and someone with more access is needed."""
    exited_at: AwareDatetime | None = None
    exit_reason: str | None = None
    said_at: AwareDatetime | None = None
    """When a reply said it with its ways out (once: later replies refer to it in one line)."""
    chosen: WayOut | None = None
    """The way out a responder chose last, who and when."""
    chosen_by: str | None = None
    chosen_at: AwareDatetime | None = None

    @property
    def is_active(self) -> bool:
        """Still degraded."""
        return self.exited_at is None


class EscalationType(StrEnum):
    """Why a human expert was brought in."""

    EXPERTISE_REQUIRED = "expertise_required"
    PERMISSIONS_REQUIRED = "permissions_required"
    NO_PROGRESS = "no_progress"
    USER_REQUEST = "user_request"
    CRITICAL_SEVERITY = "critical_severity"
    OTHER = "other"


class EscalationState(DomainModel):
    """The investigation was escalated to a human expert."""

    escalation_type: EscalationType
    reason: str
    escalated_to: str | None = None
    escalated_at: AwareDatetime = Field(default_factory=utc_now)
    context_summary: str
    key_findings: list[str] = Field(default_factory=list)
    resolution: str | None = None
    resolved_at: AwareDatetime | None = None

    @property
    def is_active(self) -> bool:
        """The escalation is still open."""
        return self.resolved_at is None


class DocumentType(StrEnum):
    """Kinds of documents generated from a case."""

    INCIDENT_REPORT = "incident_report"
    POST_MORTEM = "post_mortem"
    RUNBOOK = "runbook"
    CHAT_SUMMARY = "chat_summary"
    TIMELINE = "timeline"
    EVIDENCE_BUNDLE = "evidence_bundle"
    OTHER = "other"


class GeneratedDocument(DomainModel):
    """A document generated from the case."""

    document_id: str = Field(default_factory=lambda: new_id("doc"))
    document_type: DocumentType
    title: str
    content_ref: str
    generated_at: AwareDatetime = Field(default_factory=utc_now)
    format: str = "markdown"
    size_bytes: int | None = Field(default=None, ge=0)


class ResolutionArtifacts(DomainModel):
    """Post-resolution deliverables: what was offered, requested and produced."""

    case_report_offered: bool = False
    runbook_offered: bool = False
    runbook_exists: bool = False
    """A similar runbook already exists in the knowledge base (similarity above 0.85)."""
    requested: list[DocumentType] = Field(default_factory=list)
    declined: bool = False
    case_report_generated: str | None = None
    runbook_generated: str | None = None


class DocumentationData(DomainModel):
    """Lessons and documents captured when the case ends."""

    documents_generated: list[GeneratedDocument] = Field(default_factory=list)
    runbook_entry: str | None = None
    post_mortem_id: str | None = None
    lessons_learned: list[str] = Field(default_factory=list)
    what_went_well: list[str] = Field(default_factory=list)
    what_could_improve: list[str] = Field(default_factory=list)
    preventive_measures: list[str] = Field(default_factory=list)
    monitoring_recommendations: list[str] = Field(default_factory=list)
    artifacts: ResolutionArtifacts = Field(default_factory=ResolutionArtifacts)
    generated_at: AwareDatetime | None = None
    generated_by: str = "agent"
