"""Reply contracts: what the model fills each turn (the seeds' field names; system fields left out).

Field docstrings are the descriptions the model sees in the JSON schema. Ids, timestamps, evidence
categories, path selection and every status change are the system's business, so they are not here.
Maps keyed by id are lists of objects carrying the id (strict JSON-schema modes reject maps).
"""

from __future__ import annotations

import zlib
from datetime import datetime
from typing import Annotated

from pydantic import AfterValidator, Field

from domain.base import DomainModel
from domain.investigation.conclusions import AlternativeExplanation, SolutionType
from domain.investigation.evidence import EvidenceClassification, EvidenceStance
from domain.investigation.evidence_requests import AcquisitionGuidance, Criticality, RequestCategory
from domain.investigation.hypotheses import (
    EvidenceRequirement,
    HypothesisCategory,
    HypothesisGenerationMode,
    HypothesisStatus,
)
from domain.investigation.progress import MilestoneUpdates
from domain.investigation.turns import TurnOutcome
from domain.investigation.verification import Correlation, TemporalState, UrgencyLevel
from domain.lifecycle.special_states import DocumentType
from domain.lifecycle.status import CaseStatus, ClosureReason
from domain.tools.requests import ToolRequest

MAX_REQUESTS_PER_TURN = 3
MAX_TOOL_REQUESTS = 3
"""Tool runs one reply may ask for (the rest are ignored)."""
MAX_ANSWER_CHARS = 4000
"""What a thread message may say at most: the structured fields carry the rest."""
DEGENERATE_FROM_CHARS = 1500
DEGENERATE_RATIO = 0.12
"""Text that compresses below this share of its size repeats itself (a model stuck in a loop)."""


def _not_degenerate(text: str) -> str:
    """Refuse an answer that repeats itself, so it is asked again instead of flooding a thread."""
    if len(text) >= DEGENERATE_FROM_CHARS:
        packed = len(zlib.compress(text.encode("utf-8")))
        if packed / len(text.encode("utf-8")) < DEGENERATE_RATIO:
            raise ValueError("the answer repeats itself; say it once, in a few sentences")
    return text


Answer = Annotated[str, Field(max_length=MAX_ANSWER_CHARS), AfterValidator(_not_degenerate)]
"""``agent_response``: a few sentences for the thread, never a runaway."""


class StatusChangeRequest(DomainModel):
    """A person asked, in this turn, to move the case to another status. Never your own idea."""

    to_status: CaseStatus
    """investigating (start a formal investigation), resolved (fixed) or closed (no fix)."""
    closure_reason: ClosureReason | None = None
    """For closed: abandoned, escalated, consulting_only, duplicate or other."""
    reason: str = ""
    """Why, in the person's own words."""
    resolution_summary: str | None = None
    """For resolved: what the person says fixed it."""


# ---------------------------------------------------------------- consulting


class ProblemConfirmationUpdate(DomainModel):
    """Your initial understanding of the problem (triage), once there is a problem signal."""

    problem_type: str
    """Kind of problem: error, slowness, outage, capacity, data, security, other."""
    severity_guess: str
    """CRITICAL | HIGH | MEDIUM | LOW."""
    preliminary_guidance: str = ""
    """First guidance you gave."""
    affected_components: list[str] = Field(default_factory=list)
    """Services or components that seem affected."""
    impact: str | None = None
    """Who or what is affected, as far as known."""
    investigation_approach: str | None = None
    """How you would investigate it."""
    estimated_evidence_needed: list[str] = Field(default_factory=list)
    """Kinds of evidence you expect to need."""


class ConsultingStateUpdate(DomainModel):
    """What you may update while consulting."""

    problem_confirmation: ProblemConfirmationUpdate | None = None
    """Fill once the conversation shows a real problem; null for plain questions."""
    proposed_problem_statement: str | None = Field(default=None, max_length=1000)
    """A clear, specific, checkable problem statement in your words, for the people to confirm.
    Create it when you can; revise it when they correct you; null if unchanged or no problem."""
    quick_suggestions: list[str] = Field(default_factory=list)
    """Short, safe things they could try right away."""
    status_change_request: StatusChangeRequest | None = None
    """Only when a person asked to investigate formally or to close the case."""


class ConsultingResponse(DomainModel):
    """Template 1 (consulting) reply."""

    agent_response: Answer
    """What you say in the thread (Slack markdown), a few sentences."""
    state_updates: ConsultingStateUpdate = Field(default_factory=ConsultingStateUpdate)
    citations: list[str] = Field(default_factory=list)
    """Labels (cite="…") of the quoted excerpts your answer relies on."""


# ---------------------------------------------------------------- investigating


class ChangeToAdd(DomainModel):
    """A recent change that may matter."""

    description: str
    occurred_at: datetime
    """When it happened (ISO 8601; UTC if no zone is given)."""
    change_type: str = "other"
    """deployment | config | scaling | code | infrastructure | data | other."""
    change_id: str | None = None
    """Deployment id, PR number or change ticket."""
    changed_by: str | None = None


class ProblemVerificationUpdate(DomainModel):
    """Verified facts about the problem; fill only what the data supports."""

    symptom_indicators: list[str] = Field(default_factory=list)
    """Specific metrics or observations confirming the symptom."""
    affected_services: list[str] = Field(default_factory=list)
    affected_users: str | None = None
    """User impact: 'all', '10%', 'premium tier'…"""
    affected_regions: list[str] = Field(default_factory=list)
    severity: str | None = None
    """CRITICAL | HIGH | MEDIUM | LOW."""
    user_impact: str | None = None
    started_at: datetime | None = None
    noticed_at: datetime | None = None
    resolved_naturally_at: datetime | None = None
    temporal_state: TemporalState | None = None
    """ongoing (happening now) or historical (in the past); null if nobody said."""
    urgency_level: UrgencyLevel | None = None
    """From severity, impact and timing; null if impact is unknown."""
    urgency_factors: list[str] = Field(default_factory=list)
    recent_changes: list[ChangeToAdd] = Field(default_factory=list)
    correlations: list[Correlation] = Field(default_factory=list)
    correlation_confidence: float | None = Field(default=None, ge=0.0, le=1.0)
    verification_confidence: float | None = Field(default=None, ge=0.0, le=1.0)


class EvidenceToAdd(DomainModel):
    """Objective data a person provided this turn (files, pasted output, errors, metrics)."""

    ref: str
    """Your label for it in this reply, e.g. 'E1'; use it as evidence_id in links."""
    summary: str = Field(max_length=500)
    """One line: what the data shows."""
    analysis: str | None = None
    """What it means for the investigation."""
    source_ref: str | None = None
    """The NEW INPUT it came from: a file id (file_…) or a message ts."""
    tests_hypothesis_id: str | None = None
    """The hypothesis id (or new-hypothesis ref) this evidence mainly tests, if any."""
    stance: EvidenceStance | None = None
    """Its stance toward that hypothesis."""
    key_findings: list[str] = Field(default_factory=list)


class HypothesisToAdd(DomainModel):
    """A new candidate explanation, when the root cause is not obvious."""

    ref: str
    """Your label for it in this reply, e.g. 'H1'; use it as hypothesis_id in links."""
    statement: str
    category: HypothesisCategory
    likelihood: float = Field(ge=0.0, le=1.0)
    rationale: str
    generation_mode: HypothesisGenerationMode = HypothesisGenerationMode.OPPORTUNISTIC
    evidence_requirements: list[EvidenceRequirement] = Field(default_factory=list)
    """Evidence that would confirm or rule it out."""


class HypothesisUpdate(DomainModel):
    """A change to an existing hypothesis."""

    hypothesis_id: str
    status: HypothesisStatus | None = None
    """validated, inconclusive or retired. 'refuted' only asks the people to confirm."""
    likelihood: float | None = Field(default=None, ge=0.0, le=1.0)
    rationale: str | None = None
    evidence_id: str | None = None
    """For a refutation: the evidence (id or ref) that contradicts it."""


class HypothesisEvidenceLinkToAdd(DomainModel):
    """How one piece of evidence bears on one hypothesis."""

    hypothesis_id: str
    """Existing hypothesis id, or the ref of one added in this reply."""
    evidence_id: str
    """Existing evidence id, or the ref of one added in this reply."""
    stance: EvidenceStance
    reasoning: str
    """Why this stance, for THIS hypothesis."""
    completeness: float = Field(ge=0.0, le=1.0)
    """How well this evidence tests this hypothesis (0.0-1.0)."""


class SolutionToAdd(DomainModel):
    """A mitigation or a permanent fix you propose."""

    solution_type: SolutionType
    title: str
    immediate_action: str | None = None
    """The quick fix or mitigation, described (not as a command)."""
    longterm_fix: str | None = None
    """The permanent fix."""
    is_mitigation: bool = False
    """True for a quick mitigation that stops the impact before the root cause is known."""
    implementation_steps: list[str] = Field(default_factory=list)
    commands: list[str] = Field(default_factory=list)
    """The commands to run, in order: the actions (rollback, restart, scale, config change), which
    people run themselves, and read-only checks to verify them; never destructive ones."""
    risks: list[str] = Field(default_factory=list)


class WorkingConclusionUpdate(DomainModel):
    """Your current best understanding."""

    statement: str
    confidence: float = Field(ge=0.0, le=1.0)
    reasoning: str
    supporting_evidence_ids: list[str] = Field(default_factory=list)
    caveats: list[str] = Field(default_factory=list)


class RootCauseConclusionUpdate(DomainModel):
    """The root cause, with a calibrated confidence and the evidence behind it."""

    root_cause: str
    confidence_score: float = Field(ge=0.0, le=1.0)
    """Use the confidence rubric."""
    mechanism: str
    """How this cause produced the symptom."""
    evidence_basis: list[str] = Field(default_factory=list)
    """Ids (or refs) of the supporting evidence."""
    missing_evidence: list[str] = Field(default_factory=list)
    """Evidence that would raise the confidence."""
    alternative_explanations: list[AlternativeExplanation] = Field(default_factory=list)
    caveats: list[str] = Field(default_factory=list)
    contributing_factors: list[str] = Field(default_factory=list)
    validated_hypothesis_id: str | None = None


class EvidenceRequestToAdd(DomainModel):
    """A request for specific diagnostic data, with how to get it."""

    label: str = Field(max_length=100)
    """Brief, specific title."""
    description: str = Field(max_length=500)
    """What is needed and why it helps the diagnosis."""
    category: RequestCategory
    guidance: AcquisitionGuidance = Field(default_factory=AcquisitionGuidance)
    criticality: Criticality = Criticality.REQUIRED
    tool: ToolRequest | None = None
    """A run of one of the listed tools that would collect this evidence; null if none would."""


class InvestigationStateUpdate(DomainModel):
    """The investigation form: one schema for every stage; fill what this turn supports."""

    milestones: MilestoneUpdates = Field(default_factory=MilestoneUpdates)
    """Set to true what the evidence shows is done; never false."""
    verification_updates: ProblemVerificationUpdate | None = None
    evidence_to_add: list[EvidenceToAdd] = Field(default_factory=list)
    hypotheses_to_add: list[HypothesisToAdd] = Field(default_factory=list)
    hypotheses_to_update: list[HypothesisUpdate] = Field(default_factory=list)
    hypothesis_evidence_links: list[HypothesisEvidenceLinkToAdd] = Field(default_factory=list)
    solutions_to_add: list[SolutionToAdd] = Field(default_factory=list)
    applied_solution_id: str | None = None
    """The solution a person said they applied this turn (they will be asked to confirm)."""
    verified_solution_id: str | None = None
    """The solution a person's data shows worked (they will be asked to confirm)."""
    verification_evidence_id: str | None = None
    """Evidence (id or ref) showing the solution worked."""
    working_conclusion: WorkingConclusionUpdate | None = None
    root_cause_conclusion: RootCauseConclusionUpdate | None = None
    evidence_requests: list[EvidenceRequestToAdd] = Field(
        default_factory=list, max_length=MAX_REQUESTS_PER_TURN
    )
    """2-3 new requests when data is needed; none when nothing is missing."""
    obsolete_request_ids: list[str] = Field(default_factory=list)
    """Open requests the investigation no longer needs."""
    tool_requests: list[ToolRequest] = Field(default_factory=list, max_length=MAX_TOOL_REQUESTS)
    """Runs of the tools listed under "Tools you may ask for" that would show what you need
    now (read-only); empty when no tool is listed or none would help."""
    classification: EvidenceClassification | None = None
    """The newest input classified against the open evidence requests."""
    status_change_request: StatusChangeRequest | None = None
    """Only when a person asked to close the case or mark it resolved."""
    outcome: TurnOutcome | None = None
    """What happened this turn."""


class InvestigationResponse(DomainModel):
    """Template 2 (investigating) reply."""

    agent_response: Answer
    """What you say in the thread (Slack markdown), a few sentences."""
    state_updates: InvestigationStateUpdate = Field(default_factory=InvestigationStateUpdate)
    citations: list[str] = Field(default_factory=list)
    """Labels (cite="…") of the quoted excerpts your answer relies on."""


# ---------------------------------------------------------------- terminal


class DocumentationUpdate(DomainModel):
    """Lessons captured after the case ended."""

    lessons_learned: list[str] = Field(default_factory=list)
    what_went_well: list[str] = Field(default_factory=list)
    what_could_improve: list[str] = Field(default_factory=list)
    preventive_measures: list[str] = Field(default_factory=list)
    monitoring_recommendations: list[str] = Field(default_factory=list)
    documents_to_generate: list[DocumentType] = Field(default_factory=list)
    """Documents a person asked for (incident_report, runbook…)."""


class TerminalStateUpdate(DomainModel):
    """A finished case only takes documentation."""

    documentation_updates: DocumentationUpdate | None = None


class TerminalResponse(DomainModel):
    """Template 3 (terminal) reply."""

    agent_response: Answer
    """What you say in the thread (Slack markdown), a few sentences."""
    state_updates: TerminalStateUpdate = Field(default_factory=TerminalStateUpdate)
    citations: list[str] = Field(default_factory=list)
    """Labels (cite="…") of the quoted excerpts your answer relies on."""


EngineReply = ConsultingResponse | InvestigationResponse | TerminalResponse
