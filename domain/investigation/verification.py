"""Problem context: consulting data, problem verification, and the path-selection matrix."""

from __future__ import annotations

from datetime import datetime, timedelta
from enum import StrEnum

from pydantic import AwareDatetime, Field

from domain.base import DomainModel, utc_now
from domain.people import mention


class TemporalState(StrEnum):
    """Is the problem happening now or did it happen in the past?"""

    ONGOING = "ongoing"
    HISTORICAL = "historical"


class UrgencyLevel(StrEnum):
    """Problem urgency for routing decisions."""

    CRITICAL = "critical"
    HIGH = "high"
    MEDIUM = "medium"
    LOW = "low"
    UNKNOWN = "unknown"


class Change(DomainModel):
    """A recent change that may be relevant to the problem."""

    description: str
    occurred_at: AwareDatetime
    change_type: str = "other"
    """deployment | config | scaling | code | infrastructure | data | other."""
    change_id: str | None = None
    """Deployment id, PR number or change ticket."""
    changed_by: str | None = None


class Correlation(DomainModel):
    """A correlation between a change and the symptom."""

    change_description: str
    timing_description: str
    """Temporal relationship, e.g. '2 minutes before'."""
    confidence: float = Field(ge=0.0, le=1.0)
    correlation_type: str = "temporal"
    """temporal | causal | coincidental."""


class ProblemVerification(DomainModel):
    """Verified facts about the problem: symptom, scope, timeline, changes, urgency."""

    symptom_statement: str
    symptom_indicators: list[str] = Field(default_factory=list)
    affected_services: list[str] = Field(default_factory=list)
    affected_users: str | None = None
    affected_regions: list[str] = Field(default_factory=list)
    severity: str = "UNKNOWN"
    """CRITICAL | HIGH | MEDIUM | LOW | UNKNOWN."""
    user_impact: str | None = None
    started_at: AwareDatetime | None = None
    noticed_at: AwareDatetime | None = None
    resolved_naturally_at: AwareDatetime | None = None
    duration: timedelta | None = None
    temporal_state: TemporalState | None = None
    recent_changes: list[Change] = Field(default_factory=list)
    correlations: list[Correlation] = Field(default_factory=list)
    correlation_confidence: float = Field(default=0.0, ge=0.0, le=1.0)
    urgency_level: UrgencyLevel = UrgencyLevel.UNKNOWN
    urgency_factors: list[str] = Field(default_factory=list)
    verified_at: AwareDatetime | None = None
    verification_confidence: float = Field(default=0.0, ge=0.0, le=1.0)


class ProblemConfirmation(DomainModel):
    """The agent's initial understanding of the problem during consulting (triage)."""

    problem_type: str
    severity_guess: str
    """CRITICAL | HIGH | MEDIUM | LOW."""
    preliminary_guidance: str = ""
    affected_components: list[str] = Field(default_factory=list)
    impact: str | None = None
    investigation_approach: str | None = None
    estimated_evidence_needed: list[str] = Field(default_factory=list)
    created_at: AwareDatetime = Field(default_factory=utc_now)


class ConsultingData(DomainModel):
    """Pre-investigation exploration and the problem-statement confirmation workflow."""

    problem_confirmation: ProblemConfirmation | None = None
    proposed_problem_statement: str | None = Field(default=None, max_length=1000)
    """The agent's formalised problem statement; immutable once confirmed."""
    problem_statement_confirmed: bool = False
    problem_statement_confirmed_at: AwareDatetime | None = None
    quick_suggestions: list[str] = Field(default_factory=list)
    decided_to_investigate: bool = False
    decision_made_at: AwareDatetime | None = None
    consultation_turns: int = Field(default=0, ge=0)


class InvestigationPath(StrEnum):
    """Routing: mitigation first (1-4-2-3-4), root cause (1-2-3-4), or the user decides."""

    MITIGATION_FIRST = "mitigation_first"
    ROOT_CAUSE = "root_cause"
    USER_CHOICE = "user_choice"


class InvestigationStrategy(StrEnum):
    """The evidence seed's strategies: active incident = mitigation first, post-mortem = RCA."""

    ACTIVE_INCIDENT = "active_incident"
    POST_MORTEM = "post_mortem"


class PathSelection(DomainModel):
    """The selected path; system-determined from the matrix or chosen by a person."""

    path: InvestigationPath
    auto_selected: bool
    rationale: str
    alternate_path: InvestigationPath | None = None
    selected_at: AwareDatetime = Field(default_factory=utc_now)
    selected_by: str = "system"
    temporal_state: TemporalState | None = None
    urgency_level: UrgencyLevel | None = None


_URGENT = frozenset({UrgencyLevel.CRITICAL, UrgencyLevel.HIGH})
_CALM = frozenset({UrgencyLevel.MEDIUM, UrgencyLevel.LOW})


def determine_investigation_path(pv: ProblemVerification, now: datetime) -> PathSelection:
    """Select the path from temporal state × urgency; the model never chooses it directly."""
    temporal, urgency = pv.temporal_state, pv.urgency_level
    if temporal is TemporalState.ONGOING and urgency in _URGENT:
        path, alternate = InvestigationPath.MITIGATION_FIRST, InvestigationPath.ROOT_CAUSE
        rationale = f"Ongoing {urgency.value} issue: stop the impact first, root cause after."
    elif temporal is TemporalState.HISTORICAL and urgency in _CALM:
        path, alternate = InvestigationPath.ROOT_CAUSE, InvestigationPath.MITIGATION_FIRST
        rationale = f"Historical {urgency.value} issue: time for a thorough RCA and a lasting fix."
    else:
        label = temporal.value if temporal else "unknown timing"
        return PathSelection(
            path=InvestigationPath.USER_CHOICE,
            auto_selected=False,
            rationale=f"Ambiguous case ({label} + {urgency.value}): you choose "
            "mitigation first or root-cause analysis.",
            selected_at=now,
            temporal_state=temporal,
            urgency_level=urgency,
        )
    return PathSelection(
        path=path,
        auto_selected=True,
        rationale=rationale,
        alternate_path=alternate,
        selected_at=now,
        temporal_state=temporal,
        urgency_level=urgency,
    )


def choose_path(
    selection: PathSelection, path: InvestigationPath, *, by: str, now: datetime
) -> PathSelection:
    """Record a person's choice between the two concrete paths."""
    if path is InvestigationPath.USER_CHOICE:
        raise ValueError("a person chooses a concrete path, not USER_CHOICE")
    other = (
        InvestigationPath.ROOT_CAUSE
        if path is InvestigationPath.MITIGATION_FIRST
        else InvestigationPath.MITIGATION_FIRST
    )
    return selection.model_copy(
        update={
            "path": path,
            "auto_selected": False,
            "rationale": f"Chosen by {mention(by)}",
            "alternate_path": other,
            "selected_at": now,
            "selected_by": by,
        }
    )
