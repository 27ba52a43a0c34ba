"""Which trusted tool an alert's analysis reads first, and with what: deterministic, no model."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

from domain.tools.policy import ToolSpec
from domain.workflows.observed import alert_expression, alert_queries, series_summary
from domain.workflows.signals import Signal, SignalGroup, SignalStatus

NOW = datetime(2026, 11, 27, 14, 30, tzinfo=UTC)
RANGE_SCHEMA = {
    "type": "object",
    "properties": {"query": {}, "start": {}, "end": {}, "step": {}},
}


def spec(tool: str = "execute_range_query", *, trusted: bool = True) -> ToolSpec:
    return ToolSpec(
        server="prometheus",
        tool=tool,
        name=f"prometheus__{tool}",
        description="",
        input_schema=RANGE_SCHEMA,
        trusted=trusted,
    )


def group(*, url: str | None = None, started: datetime | None = None, **notes: str) -> SignalGroup:
    signal = Signal(
        status=SignalStatus.FIRING,
        labels={"alertname": "HighErrorRate"},
        annotations=notes,
        starts_at=started or NOW - timedelta(minutes=10),
        generator_url=url,
        fingerprint="f1",
    )
    return SignalGroup(status=SignalStatus.FIRING, alerts=[signal])


def test_the_expression_comes_from_an_annotation_before_the_generator_url() -> None:
    found = group(url="http://prom:9090/graph?g0.expr=up&g0.tab=1", expr="rate(x[5m]) > 1")
    assert alert_expression(found.primary) == "rate(x[5m]) > 1"


def test_the_expression_is_read_from_the_generator_url_decoded() -> None:
    url = "http://prom:9090/graph?g0.expr=sum%28rate%28errors%5B5m%5D%29%29+%3E+1&g0.tab=1"
    assert alert_expression(group(url=url).primary) == "sum(rate(errors[5m])) > 1"


def test_a_trusted_range_query_asks_from_fifteen_minutes_before_the_alert_until_now() -> None:
    (query,) = alert_queries(group(expr="up == 0"), [spec("list_metrics"), spec()], now=NOW)
    assert (query.server, query.tool, query.expression) == (
        "prometheus",
        "execute_range_query",
        "up == 0",
    )
    assert json.loads(query.arguments) == {
        "query": "up == 0",
        "start": "2026-11-27T14:05:00Z",
        "end": "2026-11-27T14:30:00Z",
        "step": "25s",
    }


def test_an_alert_that_started_days_ago_is_read_over_six_hours() -> None:
    old = group(expr="up == 0", started=NOW - timedelta(days=3))
    (query,) = alert_queries(old, [spec()], now=NOW)
    assert json.loads(query.arguments)["start"] == "2026-11-27T08:30:00Z"


def test_nothing_runs_without_trust_a_range_tool_or_an_expression() -> None:
    assert alert_queries(group(expr="up"), [spec(trusted=False)], now=NOW) == []
    assert alert_queries(group(expr="up"), [spec("execute_query")], now=NOW) == []
    assert alert_queries(group(), [spec()], now=NOW) == []


def test_a_prometheus_matrix_is_summarised_as_series_and_points() -> None:
    matrix = {"resultType": "matrix", "result": [{"values": [[1, "0"], [2, "1"]]}, {"values": []}]}
    assert series_summary(json.dumps(matrix)) == "2 series, 2 points"
    assert series_summary(json.dumps({"data": matrix})) == "2 series, 2 points"
    assert series_summary("plain text") == "0.0 KB"
