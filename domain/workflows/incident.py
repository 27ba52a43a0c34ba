"""The incident context: observable facts only, built from a signal group (seed, "Input Principle").

Allowed: signal type and severity, the affected resource, error text, timestamps, deduplication and
storm context, cluster and business context. Anything that reads as a pre-analysed conclusion — a
root cause, a diagnosis, a suggested fix or runbook, a confidence or risk assessment — is left out,
even when a label or annotation carries it, so the model's RCA stays independent.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta

from pydantic import AwareDatetime, Field

from domain.base import DomainModel
from domain.workflows.catalog import LabelFilters, RiskLevel
from domain.workflows.observed import ObservedData
from domain.workflows.signals import Signal, SignalGroup, signal_severity

STORM_MIN_ALERTS = 5
"""A group with this many firing alerts is an alert storm (a pattern of similar alerts)."""
MAX_AFFECTED = 20
# Keys that carry conclusions, not observations (checked on label and annotation names).
PROHIBITED_KEY = re.compile(
    r"(?i)(root.?cause|\brca\b|^rca_|cause|diagnos|analys|remediat|playbook|runbook|recommend"
    r"|suggest|fix|confidence|risk(?!_tolerance)|assessment|symptom|action|solution)"
)
RESOURCE_LABELS = (
    ("deployment", "Deployment"),
    ("statefulset", "StatefulSet"),
    ("daemonset", "DaemonSet"),
    ("cronjob", "CronJob"),
    ("job_name", "Job"),
    ("horizontalpodautoscaler", "HorizontalPodAutoscaler"),
    ("persistentvolumeclaim", "PersistentVolumeClaim"),
    ("pod", "Pod"),
    ("node", "Node"),
    ("service", "Service"),
    ("instance", "Instance"),
)
BUSINESS_KEYS = {
    "environment": ("environment", "env"),
    "priority": ("priority",),
    "risk_tolerance": ("risk_tolerance",),
    "business_category": ("business_category",),
}
CLUSTER_KEYS = ("cluster", "cluster_name", "k8s_cluster")


class ResourceRef(DomainModel):
    """The resource a signal is about."""

    kind: str
    name: str
    namespace: str | None = None

    def label(self) -> str:
        """``namespace/Kind/name``, or ``Kind/name`` for cluster resources."""
        head = f"{self.namespace}/" if self.namespace else ""
        return f"{head}{self.kind}/{self.name}"


class DedupContext(DomainModel):
    """How often this same signal arrived: persistence, not failed remediation."""

    is_duplicate: bool
    first_seen: AwareDatetime
    last_seen: AwareDatetime
    occurrence_count: int = Field(ge=1)


class StormContext(DomainModel):
    """Whether the signal is part of an alert storm, and what else it touches."""

    is_storm: bool = False
    storm_type: str | None = None
    """"pattern" (many similar alerts grouped together) when a storm."""
    storm_window: str | None = None
    storm_alert_count: int = Field(default=0, ge=0)
    affected_resources: list[str] = Field(default_factory=list)


class IncidentContext(DomainModel):
    """Everything the RCA prompt may know about the incident: observed, never concluded."""

    signal_type: str
    severity: str
    """The signal's own severity on the four-level model, or 'unknown' (the RCA may differ)."""
    signal_source: str
    alert_name: str
    component: str | None = None
    resource: ResourceRef | None = None
    error_message: str | None = None
    description: str | None = None
    firing_time: AwareDatetime | None = None
    received_time: AwareDatetime
    cluster_name: str | None = None
    signal_labels: dict[str, str] = Field(default_factory=dict)
    dedup: DedupContext
    storm: StormContext = Field(default_factory=StormContext)
    business: LabelFilters = Field(default_factory=LabelFilters)
    observed: list[ObservedData] = Field(default_factory=list)
    """What the team's trusted tools answered about the alert before the analysis."""


def build_incident_context(
    group: SignalGroup, *, dedup: DedupContext, received_at: datetime
) -> IncidentContext:
    """The observable facts of a notification, with its deduplication history."""
    primary = group.primary
    labels = {**group.common_labels, **primary.labels}
    annotations = {**group.common_annotations, **primary.annotations}
    resource = resource_of(labels)
    severity = signal_severity(labels.get("severity"))
    return IncidentContext(
        signal_type=primary.name,
        severity=severity.value if severity else "unknown",
        signal_source=_source(group),
        alert_name=primary.name,
        component=resource.kind.lower() if resource else None,
        resource=resource,
        error_message=annotations.get("summary") or annotations.get("message"),
        description=annotations.get("description"),
        firing_time=primary.starts_at,
        received_time=received_at,
        cluster_name=next((labels[k] for k in CLUSTER_KEYS if labels.get(k)), None),
        signal_labels=observable(labels, drop=_business_keys()),
        dedup=dedup,
        storm=storm_of(group),
        business=business_context(labels),
    )


def observable(values: dict[str, str], *, drop: frozenset[str] = frozenset()) -> dict[str, str]:
    """Labels or annotations without the ones carrying conclusions (and without ``drop``)."""
    return {
        key: value
        for key, value in sorted(values.items())
        if key not in drop and not PROHIBITED_KEY.search(key)
    }


def resource_of(labels: dict[str, str]) -> ResourceRef | None:
    """The most specific resource the labels name (a Deployment over its Pod, a Pod over a node)."""
    namespace = labels.get("namespace") or None
    for key, kind in RESOURCE_LABELS:
        name = labels.get(key)
        if name:
            scoped = None if kind in ("Node", "Instance") else namespace
            return ResourceRef(kind=kind, name=name, namespace=scoped)
    return None


def business_context(labels: dict[str, str]) -> LabelFilters:
    """Environment, priority, risk tolerance and business category, when the labels say."""
    found = {
        name: next((labels[k] for k in keys if labels.get(k)), None)
        for name, keys in BUSINESS_KEYS.items()
    }
    priority = (found["priority"] or "").upper() or None
    risk = (found["risk_tolerance"] or "").lower()
    return LabelFilters(
        environment=(found["environment"] or "").lower() or None,
        priority=priority if priority in ("P0", "P1", "P2", "P3") else None,
        risk_tolerance=risk if risk in {r.value for r in RiskLevel} else None,
        business_category=found["business_category"],
    )


def storm_of(group: SignalGroup) -> StormContext:
    """An alert storm when many alerts of the group fire together."""
    firing = group.firing
    count = len(firing) + group.truncated_alerts
    resources = list(dict.fromkeys(_resource_label(a) for a in firing))[:MAX_AFFECTED]
    if count < STORM_MIN_ALERTS:
        return StormContext(storm_alert_count=count, affected_resources=resources)
    starts = sorted(a.starts_at for a in firing if a.starts_at is not None)
    window = format_duration(starts[-1] - starts[0]) if starts else None
    return StormContext(
        is_storm=True,
        storm_type="pattern",
        storm_window=window,
        storm_alert_count=count,
        affected_resources=resources,
    )


def format_duration(span: timedelta) -> str:
    """``2h5m``, ``3m``, ``40s``."""
    seconds = int(span.total_seconds())
    hours, rest = divmod(seconds, 3600)
    minutes, seconds = divmod(rest, 60)
    parts = [f"{hours}h" if hours else "", f"{minutes}m" if minutes else ""]
    text = "".join(parts)
    return text or f"{seconds}s"


def _resource_label(alert: Signal) -> str:
    resource = resource_of(alert.labels)
    return resource.label() if resource else alert.name


def _source(group: SignalGroup) -> str:
    return f"{group.source} (receiver {group.receiver})" if group.receiver else group.source


def _business_keys() -> frozenset[str]:
    return frozenset(key for keys in BUSINESS_KEYS.values() for key in keys)
