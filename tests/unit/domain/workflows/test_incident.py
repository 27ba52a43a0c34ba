"""The incident context: observable facts from real alerts, never a conclusion (seed, inputs)."""

from __future__ import annotations

import json
from datetime import UTC, datetime

from bot.alerts.payload import parse_alertmanager
from domain.workflows.catalog import LabelFilters
from domain.workflows.context_text import incident_markdown
from domain.workflows.incident import (
    DedupContext,
    IncidentContext,
    build_incident_context,
    format_duration,
    observable,
)
from domain.workflows.signals import SignalGroup
from tests.alerts import LARGE, SINGLE, TWELVE, TWO, crash_looping, rule_notification, sample

RECEIVED = datetime(2026, 11, 21, 14, 20, tzinfo=UTC)
ONCE = DedupContext(is_duplicate=False, first_seen=RECEIVED, last_seen=RECEIVED, occurrence_count=1)


def group_of(payload: dict[str, object]) -> SignalGroup:
    return parse_alertmanager(json.dumps(payload).encode())


def context_of(payload: dict[str, object], dedup: DedupContext = ONCE) -> IncidentContext:
    return build_incident_context(group_of(payload), dedup=dedup, received_at=RECEIVED)


def test_a_single_real_alert_gives_its_signal_severity_instance_and_error_text() -> None:
    context = context_of(sample(SINGLE))

    assert context.signal_type == "high_memory_load"
    assert context.severity == "medium", "a 'warning' label on the four-level model"
    assert context.resource is not None
    assert context.resource.label() == "Instance/instance-with-hyphen_and_underscore"
    assert context.error_message == "Server High Memory usage"
    assert context.description == "10.80.40.11 reported high memory usage with 23.28%."
    assert context.firing_time is not None
    assert context.firing_time.isoformat() == "2018-03-07T06:33:21.873077-05:00"
    assert context.signal_source == "alertmanager (receiver teams_proxy)"


def test_missing_business_and_cluster_labels_are_unknown_not_guessed() -> None:
    context = context_of(sample(SINGLE))
    text = incident_markdown(context)

    assert context.business == LabelFilters()
    assert context.cluster_name is None
    assert "- Cluster: unknown" in text
    assert "- **Priority**: unknown" in text
    assert "- Environment: unknown" in text


def test_a_kubernetes_alert_names_its_pod_cluster_and_business_context() -> None:
    context = context_of(crash_looping())

    assert context.signal_type == "KubePodCrashLooping"
    assert context.resource is not None
    assert context.resource.label() == "payments/Pod/payments-api-7d9f8-x2k4q"
    assert context.component == "pod"
    assert context.cluster_name == "prod-eu-1"
    assert context.business == LabelFilters(
        environment="production",
        priority="P1",
        risk_tolerance="medium",
        business_category="revenue-critical",
    )
    assert "reason=CrashLoopBackOff" in incident_markdown(context)


def test_a_runbook_or_other_conclusion_carried_by_the_alert_never_reaches_the_prompt() -> None:
    payload = crash_looping()
    alert = payload["alerts"][0]  # type: ignore[index]
    alert["labels"]["root_cause"] = "bad deploy 4711"
    alert["labels"]["suggested_fix"] = "rollback"
    alert["labels"]["confidence"] = "0.9"

    text = incident_markdown(context_of(payload))

    assert "runbooks.prometheus-operator.dev" not in text, "the rule's runbook_url annotation"
    for leaked in ("root_cause", "bad deploy 4711", "suggested_fix", "rollback", "confidence"):
        assert leaked not in text
    assert "Risk Tolerance**: medium (balanced approach" in text, "business context stays"


def test_observable_keeps_facts_and_drops_conclusions() -> None:
    labels = {
        "namespace": "payments",
        "probable_cause": "x",
        "remediation_hint": "y",
        "risk_score": "high",
        "risk_tolerance": "low",
        "severity": "critical",
    }

    assert observable(labels) == {
        "namespace": "payments",
        "risk_tolerance": "low",
        "severity": "critical",
    }


def test_a_group_of_twelve_firing_alerts_is_a_storm() -> None:
    context = context_of(sample(TWELVE))

    assert context.storm.is_storm
    assert context.storm.storm_type == "pattern"
    assert context.storm.storm_alert_count == 12
    assert context.storm.storm_window == "0s", "they all started together"


def test_two_alerts_are_no_storm_but_are_counted() -> None:
    storm = context_of(sample(TWO)).storm

    assert not storm.is_storm
    assert storm.storm_alert_count == 2


def test_a_storm_lists_the_resources_it_touches() -> None:
    storm = context_of(sample(LARGE)).storm

    assert storm.is_storm
    assert storm.storm_alert_count == 19
    assert len(storm.affected_resources) == 7, "19 alerts about 7 services"
    assert "Service/database1vmenvironmentcuser3cne1" in storm.affected_resources


def test_repetition_is_reported_as_persistence() -> None:
    first = datetime(2026, 11, 21, 14, 5, tzinfo=UTC)
    dedup = DedupContext(
        is_duplicate=True, first_seen=first, last_seen=RECEIVED, occurrence_count=4
    )

    text = incident_markdown(context_of(crash_looping(), dedup))

    assert "- Is Duplicate: true" in text
    assert "- Occurrence Count: 4" in text
    assert "present continuously since first seen" in text


def test_the_narrative_comes_first_then_every_structured_section() -> None:
    text = incident_markdown(context_of(crash_looping()))
    headings = [line for line in text.splitlines() if line.startswith("#")]

    assert text.startswith(
        "# Alert analysis request\n\n## Incident Summary\nA **medium KubePodCrashLooping event** "
        "from **alertmanager (receiver faultmaven)** has occurred in "
        "**payments/Pod/payments-api-7d9f8-x2k4q**."
    )
    assert headings == [
        "# Alert analysis request",
        "## Incident Summary",
        "## Error Details",
        "## Deduplication Context",
        "## Storm Detection",
        "## Cluster Context",
        "## Business Context (for the workflow search, not for the RCA)",
    ]
    assert "P1 (high priority) - This service requires prompt attention" in text


def test_a_node_alert_is_about_the_node_not_a_namespace() -> None:
    payload = rule_notification(
        "KubeNodeNotReady", {"node": "worker-3", "namespace": "kube-system", "cluster": "c1"}
    )

    context = context_of(payload)

    assert context.resource is not None
    assert context.resource.label() == "Node/worker-3"
    assert context.severity == "medium"


def test_durations_read_like_people_write_them() -> None:
    from datetime import timedelta

    assert format_duration(timedelta(hours=2, minutes=5)) == "2h5m"
    assert format_duration(timedelta(minutes=3)) == "3m"
    assert format_duration(timedelta(seconds=40)) == "40s"
