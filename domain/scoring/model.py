"""Scoring vocabulary: phases, tiers, the four categories and the deterministic facts of a case."""

from __future__ import annotations

from enum import StrEnum

from pydantic import Field

from domain.base import DomainModel

CATEGORY_MAX = 25
"""Each of the four categories is worth 25 points (100 in total)."""


class ScoringPhase(StrEnum):
    """What a running scoring is doing (the two judge turns)."""

    EVALUATING = "evaluating_investigation"
    MISSING_TOOLS = "identifying_missing_tools"


class Category(StrEnum):
    """The judge's four categories, in the order the rubric gives them."""

    LOGICAL_FLOW = "logical_flow"
    CONSISTENCY = "consistency"
    TOOL_RELEVANCE = "tool_relevance"
    SYNTHESIS_QUALITY = "synthesis_quality"


class ScoreTier(StrEnum):
    """The three bands people read a total in."""

    LOW = "below_50"
    """Failed investigation."""
    MIDDLE = "50_to_74"
    """Weak or adequate investigation with notable gaps."""
    HIGH = "75_and_above"
    """Good investigation."""

    @staticmethod
    def of(total: int) -> ScoreTier:
        """Below 50, 50–74, 75 and above."""
        if total < 50:
            return ScoreTier.LOW
        if total < 75:
            return ScoreTier.MIDDLE
        return ScoreTier.HIGH


class ConfidenceCheck(StrEnum):
    """Does the root cause's confidence match the evidence it cites?"""

    NO_ROOT_CAUSE = "no_root_cause"
    CALIBRATED = "calibrated"
    OVERCONFIDENT = "overconfident"


class CaseFacts(DomainModel):
    """What can be counted about a case without a model, shown next to the judge's score."""

    requests_made: int = Field(ge=0)
    """Evidence requests the bot made."""
    requests_answered: int = Field(ge=0)
    """Requests the people answered completely or partly."""
    requests_blocked: int = Field(ge=0)
    """Requests the people said they could not answer."""
    unsafe_commands: int = Field(ge=0)
    """Commands suggested to run that the safety validator does not call read-only (must be 0)."""
    evidence_count: int = Field(ge=0)
    """Pieces of evidence the case holds."""
    root_cause_stated: bool
    cited_evidence: int = Field(ge=0)
    """Evidence items the root cause cites that the case actually holds."""
    root_cause_confidence: float | None = Field(default=None, ge=0.0, le=1.0)
    confidence_check: ConfidenceCheck
    turns_to_root_cause: int | None = Field(default=None, ge=1)
    """The turn (counting from 1) in which the root cause was identified, if the log says."""
    total_turns: int = Field(ge=0)

    @property
    def root_cause_cites_evidence(self) -> bool:
        """The root cause names at least one piece of evidence the case holds."""
        return self.cited_evidence > 0
