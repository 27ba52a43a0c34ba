"""What happened in one turn."""

from __future__ import annotations

from enum import StrEnum

from pydantic import AwareDatetime, Field

from domain.base import DomainModel, utc_now


class TurnOutcome(StrEnum):
    """What the turn observably did; workflow control uses counters, not this."""

    MILESTONE_COMPLETED = "milestone_completed"
    DATA_PROVIDED = "data_provided"
    DATA_REQUESTED = "data_requested"
    DATA_NOT_PROVIDED = "data_not_provided"
    HYPOTHESIS_TESTED = "hypothesis_tested"
    CASE_RESOLVED = "case_resolved"
    CONVERSATION = "conversation"
    OTHER = "other"


class TurnProgress(DomainModel):
    """Record of one turn: what advanced and whether it counted as progress."""

    turn_number: int = Field(ge=0)
    timestamp: AwareDatetime = Field(default_factory=utc_now)
    milestones_completed: list[str] = Field(default_factory=list)
    evidence_added: list[str] = Field(default_factory=list)
    hypotheses_generated: list[str] = Field(default_factory=list)
    hypotheses_validated: list[str] = Field(default_factory=list)
    solutions_proposed: list[str] = Field(default_factory=list)
    progress_made: bool
    actions_taken: list[str] = Field(default_factory=list)
    outcome: TurnOutcome
    user_message_summary: str | None = None
    agent_response_summary: str | None = None
