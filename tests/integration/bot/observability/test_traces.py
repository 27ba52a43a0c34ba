"""Traces of one turn, caught by OpenTelemetry's in-memory exporter: the turn's span and, in
the same trace under it, retrieval, the model call (model, mode, tokens) and the Slack calls."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from bot.observability.tracing import configure_tracing, shutdown_tracing
from tests.fakes.knowledge import FakeKnowledge
from tests.fakes.models.llm_server import FakeLLMServer
from tests.fakes.slack.server import FakeSlack
from tests.integration.bot.harness import BotHarness
from tests.integration.bot.replies import statement_reply


@pytest.fixture
def exporter() -> Iterator[InMemorySpanExporter]:
    caught = InMemorySpanExporter()
    configure_tracing(endpoint=None, exporter=caught, batch=False)
    try:
        yield caught
    finally:
        shutdown_tracing()


@pytest.fixture
async def traced_bot(
    exporter: InMemorySpanExporter,
    slack: FakeSlack,
    llm: FakeLLMServer,
    knowledge: FakeKnowledge,
    tmp_path: Path,
) -> AsyncIterator[BotHarness]:
    harness = await BotHarness.start(slack, llm, tmp_path, knowledge=knowledge)
    try:
        yield harness
    finally:
        await harness.stop()


def under(root: ReadableSpan, spans: list[ReadableSpan]) -> list[ReadableSpan]:
    """The spans below ``root`` (children, their children…)."""
    found, parents = [], {root.context.span_id}
    for candidate in sorted(spans, key=lambda s: s.start_time or 0):
        if candidate.parent is not None and candidate.parent.span_id in parents:
            found.append(candidate)
            parents.add(candidate.context.span_id)
    return found


async def test_one_turn_is_one_span_with_retrieval_model_and_slack_calls_under_it(
    traced_bot: BotHarness, exporter: InMemorySpanExporter
) -> None:
    await traced_bot.mention("payments returns 500s since 14:05", statement_reply())

    spans = list(exporter.get_finished_spans())
    (turn,) = [s for s in spans if s.name == "fm.turn"]
    inside = under(turn, spans)
    names = [s.name for s in inside]
    (model,) = [s for s in inside if s.name == "llm.call"]
    methods = {s.attributes["fm.slack.method"] for s in inside if s.name == "slack.api"}

    assert turn.attributes is not None
    assert turn.attributes["fm.outcome"] == "answered"
    assert turn.attributes["fm.case_id"]
    assert "retrieval" in names
    assert model.attributes is not None
    assert model.attributes["gen_ai.request.model"] == "openai/test-model"
    assert model.attributes["fm.mode"] in {"json_schema", "json_object", "tool_call", "prompted"}
    assert int(model.attributes["gen_ai.usage.input_tokens"]) > 0
    assert "chat.postMessage" in methods
    assert all(s.context.trace_id == turn.context.trace_id for s in inside)
    texts = " ".join(str(value) for s in spans for value in (s.attributes or {}).values())
    assert "500s" not in texts, "no span carries what people wrote"


def test_without_an_endpoint_tracing_stays_off_and_spans_cost_nothing() -> None:
    from bot.observability.tracing import span

    assert configure_tracing(endpoint=None) is False
    assert span("anything") is span("anything else"), "one shared no-op"
