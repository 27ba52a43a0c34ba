"""Who may answer a case's questions and decide on its workflows, when not its participants.

The edge works the people out (a user group's members, an alert channel's members) and passes
them in; the core only checks membership, and a refusal carries them back so the edge can say
who may, and how to become one of them.
"""

from __future__ import annotations

from enum import StrEnum

from domain.base import DomainModel


class ResponderSource(StrEnum):
    """Where the responders come from: what a refusal names."""

    CONFIRMERS = "confirmers"
    """The user group configured to answer every case's questions."""
    ALERT_GROUP = "alert_group"
    """The user group on call for alerts: it decides on cases alerts opened."""
    ALERT_CHANNEL = "alert_channel"
    """The members of the channel an alert was posted in (the people it paged)."""


class ResponderSet(DomainModel):
    """The people who may answer and decide instead of the case's participants."""

    members: frozenset[str]
    """Slack user ids."""
    source: ResponderSource
    group: str | None = None
    """The user group they are members of (confirmers, alert group)."""
    channel: str | None = None
    """The channel they are members of (alert channel)."""

    def includes(self, user_id: str) -> bool:
        """Whether ``user_id`` is one of them."""
        return user_id in self.members
