"""The incident context as the prompt shows it: a narrative first, then structured facts.

The seed's hybrid format: an incident summary in plain words with the business impact, then the
technical, error, deduplication, storm, cluster and business sections. Missing optional facts are
said to be unknown rather than left out, so the model does not guess them.
"""

from __future__ import annotations

from datetime import datetime

from domain.workflows.catalog import LabelFilters, Workflow, WorkflowParameter
from domain.workflows.incident import IncidentContext

UNKNOWN = "unknown"
PRIORITY_TEXT = {
    "P0": "P0 (highest priority) - This is a {category} service requiring immediate attention",
    "P1": "P1 (high priority) - This service requires prompt attention",
    "P2": "P2 (medium priority) - This service requires timely resolution",
    "P3": "P3 (low priority) - This service can be addressed during normal operations",
}
RISK_TEXT = {
    "low": "low (conservative remediation required - avoid aggressive restarts or scaling)",
    "medium": "medium (balanced approach - standard remediation actions permitted)",
    "high": "high (aggressive remediation permitted - prioritize recovery speed)",
}
DEDUP_MEANING = (
    "An occurrence count above 1 means the monitoring system kept notifying about the same "
    "condition: it has been present continuously since first seen. It says nothing about failed "
    "remediation."
)


def incident_markdown(context: IncidentContext) -> str:
    """The whole incident context."""
    sections = [
        "# Alert analysis request",
        _summary(context),
        _error_details(context),
        _dedup(context),
        _storm(context),
        _cluster(context),
        _business(context.business),
    ]
    if context.observed:
        sections.append(_observed(context))
    return "\n\n".join(sections)


def _observed(context: IncidentContext) -> str:
    lines = ["## Observed by the team's tools (quoted after this context, as data)"]
    lines += [
        f"- {o.label} of `{o.expression}`: {o.summary} (cite as {o.citation})"
        for o in context.observed
    ]
    return "\n".join(lines)


def _summary(context: IncidentContext) -> str:
    resource = context.resource.label() if context.resource else "an unidentified resource"
    business = context.business
    lines = [
        "## Incident Summary",
        f"A **{context.severity} {context.signal_type} event** from **{context.signal_source}** "
        f"has occurred in **{resource}**.",
    ]
    if context.error_message:
        lines.append(context.error_message)
    lines += [
        "",
        "**Business Impact Assessment**:",
        f"- **Priority**: {_priority(business)}",
        f"- **Environment**: {business.environment or UNKNOWN}",
        f"- **Risk Tolerance**: {RISK_TEXT.get(business.risk_tolerance or '', UNKNOWN)}",
        "",
        "**Technical Details**:",
        f"- Signal Type: {context.signal_type}",
        f"- Severity: {context.severity}",
        f"- Resource: {resource}",
        f"- Component: {context.component or UNKNOWN}",
        f"- Error: {context.error_message or UNKNOWN}",
    ]
    return "\n".join(lines)


def _priority(business: LabelFilters) -> str:
    if business.priority is None:
        return UNKNOWN
    category = business.business_category or "business-critical"
    return PRIORITY_TEXT[business.priority].format(category=category)


def _error_details(context: IncidentContext) -> str:
    return "\n".join(
        [
            "## Error Details",
            f"- Error Message: {context.error_message or UNKNOWN}",
            f"- Description: {context.description or UNKNOWN}",
            f"- Firing Time: {_time(context.firing_time)}",
            f"- Received Time: {_time(context.received_time)}",
        ]
    )


def _dedup(context: IncidentContext) -> str:
    dedup = context.dedup
    return "\n".join(
        [
            "## Deduplication Context",
            f"- Is Duplicate: {str(dedup.is_duplicate).lower()}",
            f"- First Seen: {_time(dedup.first_seen)}",
            f"- Last Seen: {_time(dedup.last_seen)}",
            f"- Occurrence Count: {dedup.occurrence_count}",
            DEDUP_MEANING,
        ]
    )


def _storm(context: IncidentContext) -> str:
    storm = context.storm
    affected = ", ".join(storm.affected_resources) or "none"
    return "\n".join(
        [
            "## Storm Detection",
            f"- Is Storm: {str(storm.is_storm).lower()}",
            f"- Storm Type: {storm.storm_type or 'none'}",
            f"- Storm Window: {storm.storm_window or 'none'}",
            f"- Storm Alert Count: {storm.storm_alert_count}",
            f"- Affected Resources: {affected}",
        ]
    )


def _cluster(context: IncidentContext) -> str:
    labels = ", ".join(f"{k}={v}" for k, v in context.signal_labels.items()) or "none"
    return "\n".join(
        [
            "## Cluster Context",
            f"- Cluster: {context.cluster_name or UNKNOWN}",
            f"- Signal Source: {context.signal_source}",
            f"- Signal Labels: {labels}",
        ]
    )


def _business(business: LabelFilters) -> str:
    return "\n".join(
        [
            "## Business Context (for the workflow search, not for the RCA)",
            f"- Environment: {business.environment or UNKNOWN}",
            f"- Priority: {business.priority or UNKNOWN}",
            f"- Business Category: {business.business_category or UNKNOWN}",
            f"- Risk Tolerance: {business.risk_tolerance or UNKNOWN}",
        ]
    )


def workflows_markdown(workflows: list[Workflow]) -> str:
    """The workflows found by the catalog search, with their parameter schemas."""
    lines = [f"## Workflows found ({len(workflows)})"]
    for number, workflow in enumerate(workflows, 1):
        labels = workflow.labels
        lines += [
            "",
            f"### Workflow {number}: {workflow.title}",
            f"- **ID**: {workflow.workflow_id}",
            f"- **Version**: {workflow.version}",
            f"- **Description**: {workflow.description.strip()}",
            f"- **Signal type**: {labels.signal_type}; **component**: {labels.component}; "
            f"**severity**: {', '.join(s.value for s in labels.severity)}",
            "",
            f"**Parameters for {workflow.title} ({workflow.workflow_id})**:",
        ]
        lines += [_parameter(p) for p in workflow.parameters] or ["- (none)"]
    return "\n".join(lines)


def _parameter(parameter: WorkflowParameter) -> str:
    need = "**REQUIRED**" if parameter.required else "optional"
    lines = [f"- `{parameter.name}` ({parameter.type.value}, {need}): {parameter.description}"]
    if parameter.enum is not None:
        lines.append(f"  - Allowed values: {parameter.enum!r}")
    limits = (("min", parameter.min), ("max", parameter.max))
    bounds = [f"{name}: {_number(value)}" for name, value in limits if value is not None]
    if bounds:
        lines.append(f"  - Constraints: {', '.join(bounds)}")
    if parameter.pattern is not None:
        lines.append(f"  - Pattern (whole value): {parameter.pattern}")
    return "\n".join(lines)


def _number(value: float) -> str:
    return str(int(value)) if value.is_integer() else str(value)


def _time(value: datetime | None) -> str:
    return value.isoformat() if value else UNKNOWN
