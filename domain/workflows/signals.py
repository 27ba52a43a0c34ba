"""Signals as received: a notification of a group of alerts, each with labels and annotations.

These are the raw observable facts; the edge parses a monitoring system's payload (Alertmanager's
webhook) into them, and ``domain.workflows.incident`` builds the prompt's context from them.
"""

from __future__ import annotations

import hashlib
import json
from enum import StrEnum

from pydantic import AwareDatetime, Field

from domain.base import DomainModel
from domain.workflows.catalog import RcaSeverity

_SEVERITY_WORDS: dict[str, RcaSeverity] = {
    **dict.fromkeys(("critical", "crit", "page", "emergency", "fatal"), RcaSeverity.CRITICAL),
    **dict.fromkeys(("high", "error", "major"), RcaSeverity.HIGH),
    **dict.fromkeys(("warning", "warn", "medium", "minor"), RcaSeverity.MEDIUM),
    **dict.fromkeys(("info", "low", "none", "notice"), RcaSeverity.LOW),
}


class SignalStatus(StrEnum):
    """Whether the condition holds now."""

    FIRING = "firing"
    RESOLVED = "resolved"


class Signal(DomainModel):
    """One alert: its identifying labels, descriptive annotations and when it started and ended."""

    status: SignalStatus
    labels: dict[str, str]
    annotations: dict[str, str] = Field(default_factory=dict)
    starts_at: AwareDatetime | None = None
    ends_at: AwareDatetime | None = None
    generator_url: str | None = None
    fingerprint: str
    """The monitoring system's id of this label set (computed from the labels when not given)."""

    @property
    def name(self) -> str:
        """The alert's name (Prometheus' ``alertname`` label)."""
        return self.labels.get("alertname") or "unnamed alert"

    @property
    def summary(self) -> str | None:
        """The one-line text of the alert, if its rule has one."""
        return self.annotations.get("summary") or self.annotations.get("message")


class SignalGroup(DomainModel):
    """One notification: alerts the monitoring system grouped together, firing or resolved."""

    source: str = "alertmanager"
    receiver: str | None = None
    group_key: str | None = None
    """Alertmanager's key of the group (repeated notifications carry the same one)."""
    status: SignalStatus
    group_labels: dict[str, str] = Field(default_factory=dict)
    common_labels: dict[str, str] = Field(default_factory=dict)
    common_annotations: dict[str, str] = Field(default_factory=dict)
    external_url: str | None = None
    truncated_alerts: int = Field(default=0, ge=0)
    alerts: list[Signal] = Field(min_length=1)

    @property
    def identity(self) -> str:
        """What deduplicates notifications: the group key, else the alerts' fingerprints."""
        basis = self.group_key or "\n".join(sorted(a.fingerprint for a in self.alerts))
        return hashlib.sha256(f"{self.source}\n{basis}".encode()).hexdigest()

    @property
    def firing(self) -> list[Signal]:
        """Alerts still firing."""
        return [a for a in self.alerts if a.status is SignalStatus.FIRING]

    @property
    def primary(self) -> Signal:
        """The alert a case is about: the first one still firing, else the first."""
        return (self.firing or self.alerts)[0]

    @property
    def fingerprints(self) -> list[str]:
        """Fingerprints of every alert, in order."""
        return [a.fingerprint for a in self.alerts]

    def title(self) -> str:
        """`AlertName: summary` for headers and case titles."""
        primary = self.primary
        summary = primary.summary or self.common_annotations.get("summary")
        return f"{primary.name}: {summary}" if summary else primary.name


def label_fingerprint(labels: dict[str, str]) -> str:
    """A stable id of a label set (Alertmanager's own fingerprint is also a hash of the labels)."""
    canonical = json.dumps(labels, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()[:16]


def signal_severity(raw: str | None) -> RcaSeverity | None:
    """The four-level severity a signal's own severity label stands for, if recognisable."""
    if not raw:
        return None
    return _SEVERITY_WORDS.get(raw.strip().lower())
