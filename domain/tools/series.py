"""The series of a Prometheus range query's answer, for a summary line and a chart.

`prometheus-mcp-server` answers `execute_range_query` with Prometheus' own result (a `matrix`,
possibly under `data`); each series is its labels and `[unix time, "value"]` pairs. Anything
else is not a series: the caller shows the text as it is.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass

RANGE_TOOLS = ("execute_range_query", "query_range", "range_query")
"""Tool names that answer a range query (what a chart is drawn for)."""


@dataclass(frozen=True)
class Series:
    """One series: what its labels say, and its points in time order."""

    label: str
    points: tuple[tuple[float, float], ...]


def range_series(text: str) -> list[Series] | None:
    """The series of a range query's answer; None when it is not one."""
    try:
        answer = json.loads(text)
    except json.JSONDecodeError:
        return None
    if isinstance(answer, dict) and isinstance(answer.get("data"), dict):
        answer = answer["data"]
    result = answer.get("result") if isinstance(answer, dict) else None
    if not isinstance(result, list):
        return None
    return [_series(entry) for entry in result if isinstance(entry, dict)]


def _series(entry: dict[str, object]) -> Series:
    metric = entry.get("metric")
    labels = metric if isinstance(metric, dict) else {}
    values = entry.get("values")
    points = [_point(v) for v in values] if isinstance(values, list) else []
    return Series(label=_label(labels), points=tuple(p for p in points if p is not None))


def _label(labels: dict[object, object]) -> str:
    name = str(labels.get("__name__", ""))
    rest = ", ".join(f"{k}={v}" for k, v in sorted(labels.items(), key=str) if k != "__name__")
    return f"{name}{{{rest}}}" if rest else name or "{}"


def _point(value: object) -> tuple[float, float] | None:
    if not isinstance(value, list) or len(value) != 2:
        return None
    try:
        at, number = float(value[0]), float(value[1])
    except (TypeError, ValueError):
        return None
    return (at, number) if math.isfinite(number) and math.isfinite(at) else None
