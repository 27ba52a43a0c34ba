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
    """Destructive commands the model suggested, withheld ones included (must be 0)."""
    actions_proposed: int = Field(default=0, ge=0)
    """Commands in solutions that change state, shown for people to run themselves."""
    changing_commands_shown: int = Field(default=0, ge=0)
    """Commands shown anywhere in solutions and evidence requests (command lists, steps, text)
    that change state: each one a person may run, so each one counts."""
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


class ScoringStatus(StrEnum):
    """Lifecycle of a scoring: pending → in_progress → completed | failed."""

    PENDING = "pending"
    IN_PROGRESS = "in_progress"
    COMPLETED = "completed"
    FAILED = "failed"

    @classmethod
    def terminal_values(cls) -> frozenset[ScoringStatus]:
        """Statuses a scoring never leaves."""
        return frozenset({cls.COMPLETED, cls.FAILED})

    @classmethod
    def active_values(cls) -> frozenset[ScoringStatus]:
        """Statuses the partial unique index allows once per case."""
        return frozenset({cls.PENDING, cls.IN_PROGRESS})


class SessionScore(DomainModel):
    """One grading of a finished case by the LLM judge (all past scores are kept)."""

    score_id: str
    case_id: str
    prompt_hash: str = Field(max_length=64)
    """The criteria hash of both judge prompts this scoring was made with."""
    total_score: int | None = Field(default=None, ge=0, le=100)
    score_analysis: str | None = None
    missing_tools_analysis: str | None = None
    score_triggered_by: str
    scored_at_us: int
    status: ScoringStatus = ScoringStatus.PENDING
    started_at_us: int
    completed_at_us: int | None = None
    error_message: str | None = None
    """Why a failed scoring failed, in words fit to show people."""
    logical_flow_score: int | None = Field(default=None, ge=0, le=CATEGORY_MAX)
    consistency_score: int | None = Field(default=None, ge=0, le=CATEGORY_MAX)
    tool_relevance_score: int | None = Field(default=None, ge=0, le=CATEGORY_MAX)
    synthesis_quality_score: int | None = Field(default=None, ge=0, le=CATEGORY_MAX)
    facts: CaseFacts | None = None
    """Deterministic facts about the case, computed before the judge is asked."""
    phase: ScoringPhase | None = None
    """The judge turn running (or the last one reached, once finished)."""
    message_channel: str | None = None
    message_ts: str | None = None
    """Where the progress message (updated in place until the result) was posted."""

    def category_scores(self) -> dict[Category, int | None]:
        """The four category scores the judge gave (None where it gave none we could read)."""
        return {category: getattr(self, f"{category.value}_score") for category in Category}
