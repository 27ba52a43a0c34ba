"""Conclusions (working and root cause), the confidence rubric, solutions and dead ends."""

from __future__ import annotations

from enum import StrEnum

from pydantic import AwareDatetime, Field

from domain.base import DomainModel, new_id, utc_now
from domain.investigation.withheld import WithheldCommand

AGENT = "agent"
"""Who determined or proposed something when it was the bot, not a person."""


class ConfidenceLevel(StrEnum):
    """Categorical confidence in a root cause, derived from its score."""

    SPECULATION = "speculation"
    PROBABLE = "probable"
    CONFIDENT = "confident"
    VERIFIED = "verified"

    @staticmethod
    def from_score(score: float) -> ConfidenceLevel:
        """<0.5 speculation, 0.5-0.69 probable, 0.7-0.89 confident, ≥0.9 verified."""
        if score < 0.5:
            return ConfidenceLevel.SPECULATION
        if score < 0.7:
            return ConfidenceLevel.PROBABLE
        if score < 0.9:
            return ConfidenceLevel.CONFIDENT
        return ConfidenceLevel.VERIFIED


CONFIDENCE_RUBRIC: tuple[tuple[float, str], ...] = (
    (0.9, "Direct evidence confirms (logs, metrics and timing align)"),
    (0.7, "Strong supporting evidence, minor gaps"),
    (0.5, "Circumstantial evidence, notable gaps"),
    (0.3, "Speculative, significant unknowns"),
    (0.0, "Educated guess, major gaps"),
)


def rubric_band(score: float) -> str:
    """The confidence rubric's wording for a score."""
    if not 0.0 <= score <= 1.0:
        raise ValueError(f"confidence must be within 0.0-1.0, got {score}")
    return next(text for floor, text in CONFIDENCE_RUBRIC if score >= floor)


class WorkingConclusion(DomainModel):
    """The current best understanding; less authoritative than a root-cause conclusion."""

    statement: str
    confidence: float = Field(ge=0.0, le=1.0)
    reasoning: str
    supporting_evidence_ids: list[str] = Field(default_factory=list)
    caveats: list[str] = Field(default_factory=list)
    updated_at: AwareDatetime = Field(default_factory=utc_now)
    supersedes_conclusion_at: AwareDatetime | None = None


class AlternativeExplanation(DomainModel):
    """Another explanation considered and judged less likely."""

    hypothesis: str
    confidence: float = Field(ge=0.0, le=1.0)
    why_less_likely: str


class RootCauseConclusion(DomainModel):
    """The determined root cause with a calibrated confidence and the evidence behind it."""

    root_cause: str
    confidence_score: float = Field(ge=0.0, le=1.0)
    mechanism: str
    """How this root cause produced the symptom."""
    evidence_basis: list[str] = Field(default_factory=list)
    """Ids of the evidence supporting this conclusion."""
    missing_evidence: list[str] = Field(default_factory=list)
    alternative_explanations: list[AlternativeExplanation] = Field(default_factory=list)
    caveats: list[str] = Field(default_factory=list)
    contributing_factors: list[str] = Field(default_factory=list)
    validated_hypothesis_id: str | None = None
    determined_at: AwareDatetime = Field(default_factory=utc_now)
    determined_by: str = AGENT

    @property
    def confidence_level(self) -> ConfidenceLevel:
        """Always derived from the score, so the two can never disagree."""
        return ConfidenceLevel.from_score(self.confidence_score)


class SolutionType(StrEnum):
    """Kind of fix."""

    ROLLBACK = "rollback"
    CONFIG_CHANGE = "config_change"
    RESTART = "restart"
    SCALING = "scaling"
    CODE_FIX = "code_fix"
    WORKAROUND = "workaround"
    INFRASTRUCTURE = "infrastructure"
    DATA_FIX = "data_fix"
    OTHER = "other"


class Solution(DomainModel):
    """A proposed or applied mitigation or permanent fix."""

    solution_id: str = Field(default_factory=lambda: new_id("sol"))
    solution_type: SolutionType
    title: str
    immediate_action: str | None = None
    longterm_fix: str | None = None
    is_mitigation: bool = False
    """A quick mitigation (mitigation-first path) rather than the permanent fix."""
    implementation_steps: list[str] = Field(default_factory=list)
    commands: list[str] = Field(default_factory=list)
    """The commands to run, in order, as people will run them: read-only checks and actions that
    change state; a destructive one, or one the validator cannot inspect, is replaced by its
    withheld note ("(command withheld: it deletes …)")."""
    withheld_commands: list[WithheldCommand] = Field(default_factory=list)
    """What was withheld from this solution's text and commands (for scoring)."""
    risks: list[str] = Field(default_factory=list)
    proposed_at: AwareDatetime = Field(default_factory=utc_now)
    proposed_by: str = AGENT
    applied_at: AwareDatetime | None = None
    applied_by: str | None = None
    deferred_by: str | None = None
    """Who answered "Not now" to applying this mitigation: it stays offered, no longer the next
    step."""
    verified_at: AwareDatetime | None = None
    verified_by: str | None = None
    verification_method: str | None = None
    verification_evidence_id: str | None = None
    effectiveness: float | None = Field(default=None, ge=0.0, le=1.0)

    @property
    def state(self) -> str:
        """proposed → applied → attested (people say it works) or verified (evidence shows it)."""
        if self.verified_at is not None:
            return "verified" if self.verification_evidence_id else "attested"
        return "applied" if self.applied_at is not None else "proposed"


class DeadEnd(DomainModel):
    """A path investigated and ruled out."""

    hypothesis: str
    evidence_checked: list[str] = Field(default_factory=list)
    why_ruled_out: str
    turn_number: int = Field(ge=0)
    confidence_eliminated: float = Field(ge=0.0, le=1.0)
