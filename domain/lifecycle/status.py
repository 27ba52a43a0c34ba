"""Case status, closure reasons and the transition table."""

from __future__ import annotations

from enum import StrEnum

from pydantic import AwareDatetime

from domain.base import DomainModel


class CaseStatus(StrEnum):
    """User-facing lifecycle: is my problem fixed? RESOLVED and CLOSED are terminal."""

    CONSULTING = "consulting"
    INVESTIGATING = "investigating"
    RESOLVED = "resolved"
    CLOSED = "closed"


TERMINAL_STATUSES = frozenset({CaseStatus.RESOLVED, CaseStatus.CLOSED})

VALID_TRANSITIONS: dict[CaseStatus, frozenset[CaseStatus]] = {
    CaseStatus.CONSULTING: frozenset({CaseStatus.INVESTIGATING, CaseStatus.CLOSED}),
    CaseStatus.INVESTIGATING: frozenset({CaseStatus.RESOLVED, CaseStatus.CLOSED}),
    CaseStatus.RESOLVED: frozenset(),
    CaseStatus.CLOSED: frozenset(),
}


class ClosureReason(StrEnum):
    """Why a case reached a terminal state."""

    RESOLVED = "resolved"
    ABANDONED = "abandoned"
    ESCALATED = "escalated"
    CONSULTING_ONLY = "consulting_only"
    DUPLICATE = "duplicate"
    OTHER = "other"


class CaseStatusTransition(DomainModel):
    """One entry of the status audit trail."""

    from_status: CaseStatus
    to_status: CaseStatus
    triggered_at: AwareDatetime
    triggered_by: str
    reason: str
    confirmation_id: str
    """The accepted confirmation that authorised this change."""


class LifecycleLabel(StrEnum):
    """The evidence seed's seven statuses, derived from the newer model for display."""

    INTAKE = "intake"
    IN_PROGRESS = "in_progress"
    MITIGATED = "mitigated"
    STALLED = "stalled"
    RESOLVED = "resolved"
    ABANDONED = "abandoned"
    CLOSED = "closed"
