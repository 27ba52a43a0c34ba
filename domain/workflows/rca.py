"""The RCA reply contracts (seed, "LLM Response Format (Authoritative)").

Two calls follow the seed's phases: the first investigates and concludes (phases 1–3: findings,
the RCA's own signal type and severity); the system then searches the catalog (phase 4); the second
returns the authoritative response with strategies (phase 5).

The strategy fields that the validator checks (confidence range, risk enum, parameters) are typed
loosely on purpose: a reply that breaks a rule must still parse, so its analysis can be shown as
RCA only while the rule it broke is logged. ``parameters`` carries the seed's ``NAME: value`` pairs
as a list of name/value objects: their names differ per workflow, and a schema with free-form keys
is refused by providers that enforce strict structured output. Lengths and other limits a strict
schema cannot carry are checked here, when the reply is parsed.
"""

from __future__ import annotations

from pydantic import Field

from domain.base import DomainModel
from domain.workflows.catalog import ParameterValue, RcaSeverity


class RcaFindings(DomainModel):
    """Your independent root-cause analysis (phases 1–3), before any workflow is considered."""

    analysis_summary: str = Field(min_length=1)
    """Brief summary of what happened and how you reasoned about it."""
    root_cause_assessment: str = Field(min_length=1)
    """Your root-cause conclusion, and the facts that support it."""
    rca_severity: RcaSeverity
    """critical | high | medium | low, assessed with the severity criteria (may differ from the
    signal's severity)."""
    severity_rationale: str = ""
    """Why this severity: user impact, environment, business impact, escalation, data risk."""
    signal_type: str = Field(min_length=1, max_length=100)
    """The signal type that best describes the effect you identified, e.g. OOMKilled,
    CrashLoopBackOff, NodeDiskPressure (may differ from the input signal)."""
    component: str = ""
    """Resource type needing remediation: deployment, statefulset, node, pod, hpa…"""
    target_resource: str = ""
    """namespace/Kind/name, or Kind/name for cluster resources, of what needs remediation."""
    contributing_factors: list[str] = Field(default_factory=list)
    """Other conditions that made it happen or worse."""
    evidence_to_confirm: list[str] = Field(default_factory=list, max_length=3)
    """At most 3 observations that would confirm or refute your conclusion (read-only checks,
    e.g. 'Kubernetes: kubectl logs deploy/api -n shop --previous')."""


class ParameterSetting(DomainModel):
    """One workflow parameter and the value chosen for it."""

    name: str
    """The parameter's name, exactly as listed (case-sensitive)."""
    value: ParameterValue | None
    """Its value, of the listed type (numbers as JSON numbers); null leaves an optional one out."""


class StrategyReply(DomainModel):
    """One remediation strategy: a catalog workflow and its parameter values."""

    workflow_id: str
    """REQUIRED: the workflow_id of one of the workflows listed."""
    version: str | None = None
    """The listed version of that workflow (omit for the latest)."""
    confidence: float
    """Your confidence, 0.0 to 1.0, that this workflow addresses the root cause."""
    rationale: str
    """Why your RCA findings lead to this workflow (non-empty)."""
    estimated_risk: str
    """low | medium | high: the risk of running it now."""
    parameters: list[ParameterSetting] = Field(default_factory=list)
    """One entry per parameter given: names exactly as listed, values of the listed type and within
    the listed constraints. Every required parameter must be present, each name once."""

    def parameter_values(self) -> dict[str, ParameterValue]:
        """The values given, by name (nulls left out; a repeated name keeps its last value)."""
        return {p.name: p.value for p in self.parameters if p.value is not None}

    def repeated_names(self) -> list[str]:
        """Parameter names given more than once."""
        names = [p.name for p in self.parameters]
        return sorted({name for name in names if names.count(name) > 1})


class ContextUsed(DomainModel):
    """The context you considered."""

    cluster_state: str
    """Assessment of cluster health, as far as the facts show it."""
    resource_availability: str
    """Assessment of available resources."""
    blast_radius: str
    """Potential impact scope of the remediation."""


class RcaReply(DomainModel):
    """The authoritative response: analysis, root cause, severity and ranked strategies."""

    analysis_summary: str = Field(min_length=1)
    """Brief summary of the failure and the approach."""
    root_cause_assessment: str = Field(min_length=1)
    """Your RCA conclusion."""
    rca_severity: RcaSeverity
    """critical | high | medium | low (your assessment)."""
    strategies: list[StrategyReply] = Field(default_factory=list)
    """Remediation strategies (1+), most appropriate first: by confidence, then lower risk."""
    warnings: list[str] = Field(default_factory=list)
    """Risks and concerns about the remediation."""
    context_used: ContextUsed
