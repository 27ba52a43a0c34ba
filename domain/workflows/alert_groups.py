"""Alert groups: which case a group of alerts opened, and how often it was notified since."""

from __future__ import annotations

from dataclasses import dataclass, field

from pydantic import AwareDatetime, Field

from domain.base import DomainModel, new_id
from domain.workflows.incident import DedupContext
from domain.workflows.signals import SignalGroup, SignalStatus


class AlertGroupRecord(DomainModel):
    """One active group: its case thread, latest notification and deduplication counters."""

    group_id: str = Field(default_factory=lambda: new_id("alg"))
    team_id: str
    group_hash: str
    """``SignalGroup.identity``: unique among active groups of a workspace."""
    group_key: str | None = None
    status: SignalStatus
    channel_id: str
    alert_ts: str | None = None
    """The alert's message in the alert channel: the case thread's parent."""
    case_id: str | None = None
    fingerprints: list[str] = Field(default_factory=list)
    """Every alert fingerprint seen in this group."""
    latest: SignalGroup
    occurrence_count: int = Field(default=1, ge=1)
    first_seen: AwareDatetime
    last_seen: AwareDatetime
    retired_at: AwareDatetime | None = None
    """Set when the group's case finished and the group fired again (a new case took over)."""

    def dedup(self) -> DedupContext:
        """The deduplication facts for the incident context."""
        return DedupContext(
            is_duplicate=self.occurrence_count > 1,
            first_seen=self.first_seen,
            last_seen=self.last_seen,
            occurrence_count=self.occurrence_count,
        )


@dataclass(frozen=True)
class GroupTouch:
    """A notification recorded against its group: new or repeated, and what changed."""

    record: AlertGroupRecord
    created: bool
    previous_status: SignalStatus | None = None
    new_fingerprints: list[str] = field(default_factory=list)

    @property
    def fired_again(self) -> bool:
        """Resolved before, firing now."""
        return (
            self.previous_status is SignalStatus.RESOLVED
            and self.record.status is SignalStatus.FIRING
        )

    @property
    def resolved_now(self) -> bool:
        """This notification resolved the group."""
        return (
            self.previous_status is not SignalStatus.RESOLVED
            and self.record.status is SignalStatus.RESOLVED
        )
