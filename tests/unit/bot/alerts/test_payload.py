"""Alertmanager v4 payloads: every recorded sample parses; malformed ones are refused, with why."""

from __future__ import annotations

import json
from typing import Any

import pytest

from bot.alerts.payload import PayloadError, parse_alertmanager
from domain.workflows.signals import SignalStatus, label_fingerprint
from tests.alerts import (
    LARGE,
    NO_COMMON_SUMMARY,
    SAMPLES,
    SINGLE,
    TWELVE,
    TWO,
    crash_looping,
    resolved,
    sample,
    sample_bytes,
)


def parsed(payload: dict[str, Any]) -> Any:
    return parse_alertmanager(json.dumps(payload).encode())


@pytest.mark.parametrize("name", SAMPLES)
def test_every_recorded_notification_parses(name: str) -> None:
    group = parse_alertmanager(sample_bytes(name))

    assert group.status is SignalStatus.FIRING
    assert group.alerts
    assert group.group_key is not None


def test_a_single_alert_without_optional_fields_gets_a_status_and_fingerprint() -> None:
    group = parse_alertmanager(sample_bytes(SINGLE))
    alert = group.alerts[0]

    assert alert.status is SignalStatus.FIRING, "taken from the group"
    assert alert.fingerprint == label_fingerprint(alert.labels)
    assert alert.ends_at is None, "Go's zero time means 'not ended'"
    assert alert.generator_url is None
    assert group.truncated_alerts == 0
    assert group.title() == "high_memory_load: Server High Memory usage"


def test_grouped_alerts_keep_their_own_labels_and_fingerprints() -> None:
    group = parse_alertmanager(sample_bytes(TWELVE))

    assert len(group.alerts) == 12
    assert len(set(group.fingerprints)) == 12
    assert group.alerts[1].name == "high_memory_load2"


def test_the_large_sample_with_tabs_and_nineteen_alerts_parses() -> None:
    group = parse_alertmanager(sample_bytes(LARGE))

    assert len(group.alerts) == 19
    assert group.receiver == "prometheus-tool-dev"


def test_a_group_without_a_common_summary_takes_the_alerts_own() -> None:
    assert parse_alertmanager(sample_bytes(NO_COMMON_SUMMARY)).title() == (
        "high_memory_load: Server High Memory usage"
    )


def test_a_resolved_notification_resolves_every_alert() -> None:
    group = parsed(resolved(sample(TWO)))

    assert group.status is SignalStatus.RESOLVED
    assert {a.status for a in group.alerts} == {SignalStatus.RESOLVED}
    assert group.alerts[0].ends_at is not None


def test_a_repeated_notification_has_the_same_identity() -> None:
    first, again = parsed(sample(TWO)), parse_alertmanager(sample_bytes(TWO))

    assert first.identity == again.identity
    assert parsed(resolved(sample(TWO))).identity == first.identity
    assert parsed(sample(TWELVE)).identity == first.identity, "the same groupKey"
    assert parsed(crash_looping()).identity != first.identity


def test_without_a_group_key_the_fingerprints_identify_the_group() -> None:
    one, two = sample(TWO), sample(TWO)
    del one["groupKey"], two["groupKey"]

    assert parsed(one).identity == parsed(two).identity
    assert parsed(one).identity != parsed(sample(TWO)).identity


def test_alertmanager_fingerprints_are_kept() -> None:
    alert = parsed(crash_looping()).alerts[0]

    assert alert.fingerprint == crash_looping()["alerts"][0]["fingerprint"]  # type: ignore[index]


def broken(**changes: Any) -> bytes:
    payload = sample(SINGLE)
    payload.update(changes)
    return json.dumps(payload).encode()


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        (b"", "the body is not JSON"),
        (b"{not json", "the body is not JSON"),
        (b"\xff\xfe", "the body is not JSON"),
        (b"[1, 2]", "expected a JSON object"),
        (broken(status="exploded"), "status: Input should be 'firing' or 'resolved'"),
        (broken(version="3"), "version: Input should be '4'"),
        (broken(alerts=[]), "alerts: List should have at least 1 item"),
        (broken(alerts=[{"annotations": {}}]), "alerts.0.labels: Field required"),
        (
            broken(alerts=[{"labels": {"x": 1}}]),
            "alerts.0.labels.x: Input should be a valid string",
        ),
        (
            broken(alerts=[{"labels": {"a": "b"}, "startsAt": "yesterday"}]),
            "alerts.0.startsAt: Input should be a valid datetime",
        ),
        (broken(truncatedAlerts=-1), "truncatedAlerts: Input should be greater than or equal to 0"),
    ],
)
def test_a_malformed_payload_is_refused_with_the_reason(body: bytes, reason: str) -> None:
    with pytest.raises(PayloadError) as refused:
        parse_alertmanager(body)

    assert reason in str(refused.value)


def test_a_payload_without_status_names_it() -> None:
    payload = sample(SINGLE)
    del payload["status"]

    with pytest.raises(PayloadError, match="status: Field required"):
        parsed(payload)


def test_many_problems_are_summarised() -> None:
    payload = {"status": "x", "alerts": 3, "version": "9", "receiver": 4, "groupKey": 5}

    with pytest.raises(PayloadError, match=r"; .*; .* \(and 2 more\)$"):
        parse_alertmanager(json.dumps(payload).encode())
