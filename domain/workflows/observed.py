"""What an alert's analysis reads first from the team's own tools: the series that fired.

Deterministic, with no model: when the alert carries its rule's expression (an `expr` annotation
or label, or the `g0.expr` of its Prometheus `generatorURL`) and a trusted server offers a
Prometheus range query (a tool named like `execute_range_query` whose input schema takes
`query`, `start` and `end`), that expression is queried from 15 minutes before the alert
started until now (the last six hours at most). The answer is an observable fact, quoted to the
RCA as data.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from urllib.parse import parse_qs, urlsplit

from domain.base import DomainModel
from domain.tools.policy import ToolSpec
from domain.tools.series import RANGE_TOOLS, range_series
from domain.workflows.signals import Signal, SignalGroup

EXPRESSION_KEYS = ("expr", "expression", "query", "promql")
LOOKBACK = timedelta(minutes=15)
MAX_WINDOW = timedelta(hours=6)
"""An alert that started long ago is read over its last hours only."""
POINTS = 60
"""About how many points a series gets: enough to see the shape, small for the prompt."""
MIN_STEP_S = 15
MAX_EXPRESSION_CHARS = 2_000


class AlertQuery(DomainModel):
    """One call to make before the analysis: which tool, with what, for which expression."""

    server: str
    tool: str
    arguments: str
    """Compact JSON, sorted keys: as a tool run keeps them."""
    expression: str


class ObservedData(DomainModel):
    """What a tool answered about the alert, as the RCA reads it and people see it."""

    citation: str
    """``prometheus:execute_range_query#1 (14:05–14:35Z)``."""
    label: str
    """``prometheus execute_range_query``."""
    tool: str = ""
    """The tool's own name (``execute_range_query``)."""
    expression: str
    summary: str
    """One line: what answered (series and points), or why nothing did."""
    text: str = ""
    """The redacted, capped answer; empty when the tool did not answer with data."""


def alert_expression(signal: Signal) -> str | None:
    """The alert rule's expression, when the alert carries it."""
    for values in (signal.annotations, signal.labels):
        for key in EXPRESSION_KEYS:
            if values.get(key, "").strip():
                return values[key].strip()[:MAX_EXPRESSION_CHARS]
    if signal.generator_url:
        found = parse_qs(urlsplit(signal.generator_url).query).get("g0.expr")
        if found and found[0].strip():
            return found[0].strip()[:MAX_EXPRESSION_CHARS]
    return None


def range_tool(catalogue: Sequence[ToolSpec]) -> ToolSpec | None:
    """A trusted Prometheus range query tool, if one is offered."""
    for spec in catalogue:
        properties = spec.input_schema.get("properties", {})
        takes = isinstance(properties, dict) and {"query", "start", "end"} <= properties.keys()
        if spec.trusted and spec.tool in RANGE_TOOLS and takes:
            return spec
    return None


def alert_queries(
    group: SignalGroup, catalogue: Sequence[ToolSpec], *, now: datetime
) -> list[AlertQuery]:
    """The calls to make for this alert before its analysis (none, or one range query)."""
    primary = group.primary
    expression = alert_expression(primary)
    spec = range_tool(catalogue)
    if expression is None or spec is None:
        return []
    start = max(min(primary.starts_at or now, now) - LOOKBACK, now - MAX_WINDOW)
    step = max(MIN_STEP_S, int((now - start).total_seconds()) // POINTS)
    arguments: dict[str, str] = {
        "query": expression,
        "start": _rfc3339(start),
        "end": _rfc3339(now),
    }
    if "step" in spec.input_schema.get("properties", {}):
        arguments["step"] = f"{step}s"
    compact = json.dumps(arguments, ensure_ascii=False, sort_keys=True)
    return [
        AlertQuery(server=spec.server, tool=spec.tool, arguments=compact, expression=expression)
    ]


def series_summary(text: str) -> str:
    """``3 series, 183 points`` for a Prometheus answer; its size otherwise."""
    found = range_series(text)
    if found is None:
        return f"{len(text.encode()) / 1024:.1f} KB"
    points = sum(len(series.points) for series in found)
    return f"{len(found)} series, {points} points"


def _rfc3339(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
