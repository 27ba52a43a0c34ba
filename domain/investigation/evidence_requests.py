"""Evidence requests with acquisition guidance, and their lifecycle across turns."""

from __future__ import annotations

from collections.abc import Iterable
from enum import StrEnum
from typing import Any

from pydantic import Field

from domain.base import DomainModel, new_id
from domain.investigation.evidence import EvidenceClassification, UserIntent
from domain.investigation.withheld import WithheldCommand

COMPLETE_THRESHOLD = 0.8
PARTIAL_THRESHOLD = 0.3


class RequestCategory(StrEnum):
    """What kind of diagnostic data a request asks for."""

    SYMPTOMS = "symptoms"
    TIMELINE = "timeline"
    CHANGES = "changes"
    CONFIGURATION = "configuration"
    SCOPE = "scope"
    METRICS = "metrics"
    ENVIRONMENT = "environment"


class EvidenceStatus(StrEnum):
    """Lifecycle of a request: pending → partial → complete, or blocked, or obsolete."""

    PENDING = "pending"
    PARTIAL = "partial"
    COMPLETE = "complete"
    BLOCKED = "blocked"
    OBSOLETE = "obsolete"


OPEN_STATUSES = frozenset({EvidenceStatus.PENDING, EvidenceStatus.PARTIAL})


class Criticality(StrEnum):
    """How much the investigation depends on a request."""

    REQUIRED = "required"
    PREFERRED = "preferred"
    OPTIONAL = "optional"


class AcquisitionGuidance(DomainModel):
    """How to obtain the evidence: safe commands, paths, UI locations, alternatives."""

    commands: list[str] = Field(default_factory=list, max_length=3)
    """Read-only shell commands to run (at most 3)."""
    file_locations: list[str] = Field(default_factory=list, max_length=3)
    """File-system paths to check (at most 3)."""
    ui_locations: list[str] = Field(default_factory=list, max_length=3)
    """UI navigation paths such as 'Grafana > API > Error rate' (at most 3)."""
    alternatives: list[str] = Field(default_factory=list, max_length=3)
    """Other ways to get it, e.g. 'Kubernetes: kubectl logs deploy/api --tail=100' (at most 3)."""
    prerequisites: list[str] = Field(default_factory=list, max_length=2)
    """Access needed, e.g. 'sudo' or 'cluster read role' (at most 2)."""
    expected_output: str | None = Field(default=None, max_length=200)
    """What to look for in the result."""


class EvidenceRequest(DomainModel):
    """A structured request for specific diagnostic data, tracked across turns."""

    request_id: str = Field(default_factory=lambda: new_id("req"))
    label: str = Field(max_length=100)
    description: str = Field(max_length=500)
    category: RequestCategory
    guidance: AcquisitionGuidance = Field(default_factory=AcquisitionGuidance)
    criticality: Criticality = Criticality.REQUIRED
    status: EvidenceStatus = EvidenceStatus.PENDING
    created_at_turn: int = Field(ge=0)
    updated_at_turn: int | None = None
    completeness: float = Field(default=0.0, ge=0.0, le=1.0)
    metadata: dict[str, Any] = Field(default_factory=dict)
    withheld_commands: list[WithheldCommand] = Field(default_factory=list)
    """Commands the model suggested for this request that were not read-only (for scoring)."""

    @property
    def is_open(self) -> bool:
        """Still awaiting data (pending or partial)."""
        return self.status in OPEN_STATUSES


def status_for_completeness(current: EvidenceStatus, completeness: float) -> EvidenceStatus:
    """≥0.8 complete, ≥0.3 partial; below that the status does not change."""
    if completeness >= COMPLETE_THRESHOLD:
        return EvidenceStatus.COMPLETE
    if completeness >= PARTIAL_THRESHOLD:
        return EvidenceStatus.PARTIAL
    return current


def apply_classification(
    requests: list[EvidenceRequest],
    classification: EvidenceClassification,
    *,
    turn: int,
    blocked_reason: str | None = None,
) -> list[str]:
    """Update matched requests from one classified input; return the ids that matched nothing.

    Completeness takes the max (each input is scored on its own, never summed). An input
    reporting that the data is unavailable blocks the requests it names. Obsolete requests
    are left alone.
    """
    by_id = {r.request_id: r for r in requests}
    unknown: list[str] = []
    for req_id in dict.fromkeys(classification.matched_request_ids):
        request = by_id.get(req_id)
        if request is None:
            unknown.append(req_id)
            continue
        if request.status is EvidenceStatus.OBSOLETE:
            continue
        if classification.user_intent is UserIntent.REPORTING_UNAVAILABLE:
            request.status = EvidenceStatus.BLOCKED
            request.metadata["blocked_reason"] = blocked_reason or classification.rationale
        else:
            request.completeness = max(request.completeness, classification.completeness_score)
            request.status = status_for_completeness(request.status, request.completeness)
        request.updated_at_turn = turn
    return unknown


def block_request(request: EvidenceRequest, *, reason: str, turn: int) -> None:
    """A person said they cannot get this data (the 'Can't get this' button)."""
    if request.status in (EvidenceStatus.COMPLETE, EvidenceStatus.OBSOLETE):
        return
    request.status = EvidenceStatus.BLOCKED
    request.metadata["blocked_reason"] = reason
    request.updated_at_turn = turn


def mark_obsolete(requests: Iterable[EvidenceRequest], ids: Iterable[str], *, turn: int) -> None:
    """The investigation moved past these requests: any state becomes obsolete."""
    wanted = set(ids)
    for request in requests:
        if request.request_id in wanted and request.status is not EvidenceStatus.OBSOLETE:
            request.status = EvidenceStatus.OBSOLETE
            request.updated_at_turn = turn


def open_requests(requests: Iterable[EvidenceRequest]) -> list[EvidenceRequest]:
    """Requests still awaiting data, oldest first."""
    return [r for r in requests if r.is_open]


def blocked_critical(requests: Iterable[EvidenceRequest]) -> list[EvidenceRequest]:
    """Required requests a person reported they cannot provide."""
    return [
        r
        for r in requests
        if r.status is EvidenceStatus.BLOCKED and r.criticality is Criticality.REQUIRED
    ]
