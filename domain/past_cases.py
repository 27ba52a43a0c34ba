"""A past case a new one looks like, as the new case keeps it (no import of the case model).

The seen-before rule and search live in ``domain/memory/``; these are the values they produce,
here so that ``Case`` can hold them without an import cycle.
"""

from __future__ import annotations

from enum import StrEnum

from pydantic import AwareDatetime, Field

from domain.base import DomainModel


class Verdict(StrEnum):
    """Whether a finished case's final root cause was right."""

    RIGHT = "right"
    WRONG = "wrong"
    UNKNOWN = "unknown"
    NO_OUTCOME = "no_outcome"


class MatchedDocument(StrEnum):
    """Which of the past case's documents matched."""

    REPORT = "report"
    RUNBOOK = "runbook"


class PastCaseMatch(DomainModel):
    """A finished case the new one clearly looks like: a lead to check, not a conclusion."""

    case_id: str
    short_id: str
    """Human id, e.g. FM-7K3Q."""
    team_id: str
    channel_id: str
    thread_ts: str
    """With ``channel_id``, where its thread is (for the link)."""
    resolved_at: AwareDatetime
    problem: str
    root_cause: str
    fixed_by: str
    """What fixed it: what the resolver said, else the fixes applied, else the mitigations."""
    verdict: Verdict
    """How its root cause was graded: right or unknown (never wrong)."""
    score: float = Field(ge=-1.0, le=1.0)
    """Similarity of its best document to the new case's problem."""
    margin: float | None = None
    """How far it beat the next past case (None when it was the only candidate)."""
    document: MatchedDocument
    document_title: str
    runbook_title: str | None = None
    """Its runbook in the knowledge base, when one was written (for "use this runbook")."""
    also_seen: list[str] = Field(default_factory=list)
    """Earlier cases of the same incident that matched as closely (their short ids)."""

    @property
    def label(self) -> str:
        """The case as people know it: its short id, else its id."""
        return self.short_id or self.case_id


class SeenBefore(DomainModel):
    """What a case keeps of its look for past cases: when, what it found, what people did."""

    looked_at: AwareDatetime
    """When the case's confirmed problem was searched among finished cases (once per case)."""
    match: PastCaseMatch | None = None
    """The past case it clearly repeats; None when no match was clear."""
    runbook_followed_by: str | None = None
    """Who chose to follow the past case's runbook (Slack user id), once someone did."""
