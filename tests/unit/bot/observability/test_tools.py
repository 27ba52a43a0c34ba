"""A tool call is counted by server and outcome, and traced when tracing is on."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import pytest
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from bot.observability.metrics import REGISTRY
from bot.observability.tools import observed_tool_call
from bot.observability.tracing import configure_tracing, shutdown_tracing


@dataclass
class Result:
    outcome: str


class Hub:
    @observed_tool_call
    async def call(self, *, server: str, tool: str, arguments: dict[str, object]) -> Result:
        return Result("no_data" if arguments else "ok")


@pytest.fixture
def exporter() -> Iterator[InMemorySpanExporter]:
    caught = InMemorySpanExporter()
    configure_tracing(endpoint=None, exporter=caught, batch=False)
    try:
        yield caught
    finally:
        shutdown_tracing()


def calls(outcome: str) -> float:
    labels = {"server": "prometheus-test", "outcome": outcome}
    return REGISTRY.get_sample_value("fm_tool_calls_total", labels) or 0.0


async def test_a_tool_call_is_counted_by_server_and_outcome() -> None:
    before = calls("no_data")

    result = await Hub().call(server="prometheus-test", tool="query", arguments={"q": "up"})

    assert result.outcome == "no_data"
    assert calls("no_data") == before + 1


async def test_a_tool_call_is_a_span_with_its_server_tool_and_outcome(
    exporter: InMemorySpanExporter,
) -> None:
    await Hub().call(server="prometheus-test", tool="query", arguments={})

    (traced,) = exporter.get_finished_spans()
    assert traced.name == "tool.call"
    assert dict(traced.attributes or {}) == {
        "fm.tool.server": "prometheus-test",
        "fm.tool.name": "query",
        "fm.outcome": "ok",
    }
