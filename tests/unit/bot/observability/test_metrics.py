"""The metrics: labels stay bounded, a model call is counted with its tokens and cost, and the
registry renders in Prometheus' text format with the inbox read at each scrape."""

from __future__ import annotations

import pytest

from bot.observability.metrics import (
    REGISTRY,
    Backlog,
    bounded,
    observe_alert,
    observe_model_call,
    observe_slack_error,
    observe_tool_call,
    observe_turn,
    render,
    set_budget_spent_ratio,
)
from bot.server.acks import request_kind
from domain.llm import LLMCallOutcome, LLMCallRecord


def value(name: str, **labels: str) -> float:
    return REGISTRY.get_sample_value(name, labels) or 0.0


@pytest.mark.parametrize(
    "given",
    ["payments returns 500s since 14:05", "x" * 81, "", "line\nbreak", "<@W222>"],
)
def test_a_label_that_is_not_a_name_the_code_chose_becomes_other(given: str) -> None:
    assert bounded(given) == "other"


@pytest.mark.parametrize("given", ["openai/gpt-4o-mini", "consulting", "chat.postMessage", "ok"])
def test_names_the_code_chose_are_kept_as_labels(given: str) -> None:
    assert bounded(given) == given


def test_a_model_call_counts_its_tokens_and_cost_by_model_and_template() -> None:
    labels = {"model": "openai/bench-model", "template": "consulting"}
    before = value("fm_llm_tokens_total", **labels, direction="prompt")
    record = LLMCallRecord(
        model="openai/bench-model",
        template="consulting",
        template_hash="0" * 64,
        latency_ms=1200,
        prompt_tokens=900,
        completion_tokens=120,
        cost_usd=0.004,
        outcome=LLMCallOutcome.OK,
    )

    observe_model_call(record)

    assert value("fm_llm_calls_total", **labels, outcome="ok") >= 1
    assert value("fm_llm_tokens_total", **labels, direction="prompt") == before + 900
    assert value("fm_llm_cost_usd_total", **labels) >= 0.004
    assert value("fm_llm_call_duration_seconds_count", model="openai/bench-model", outcome="ok")


def test_turns_alerts_tools_slack_errors_and_the_budget_are_counted() -> None:
    observe_turn("answered", 2.5)
    observe_alert("accepted_firing")
    observe_tool_call("prometheus", "no_data")
    observe_slack_error("chat.update", "message_not_found", rate_limited=False)
    observe_slack_error("chat.postMessage", "ratelimited", rate_limited=True)
    set_budget_spent_ratio(0.42)

    assert value("fm_turns_total", outcome="answered") >= 1
    assert value("fm_alert_notifications_total", outcome="accepted_firing") >= 1
    assert value("fm_tool_calls_total", server="prometheus", outcome="no_data") >= 1
    assert value("fm_slack_api_errors_total", method="chat.update", error="message_not_found")
    assert value("fm_slack_rate_limited_total", method="chat.postMessage") >= 1
    assert value("fm_llm_budget_spent_ratio") == 0.42


async def test_the_registry_renders_with_the_inbox_read_at_the_scrape() -> None:
    async def backlog() -> Backlog:
        return Backlog(depth=7, oldest_age_s=42.0)

    text = (await render(backlog)).decode()

    assert "fm_inbox_depth 7.0" in text
    assert "fm_inbox_oldest_age_seconds 42.0" in text
    assert "# TYPE fm_slack_ack_seconds histogram" in text


@pytest.mark.parametrize(
    ("body", "kind"),
    [
        ({"command": "/fm", "text": "status FM-1"}, "slash_command"),
        ({"type": "event_callback", "event": {"type": "message"}}, "event:message"),
        ({"type": "event_callback", "event": {"type": "made_up_by_someone"}}, "event:other"),
        ({"type": "block_actions"}, "block_actions"),
        ({"type": "anything else"}, "other"),
        ({}, "other"),
    ],
)
def test_a_slack_request_is_labelled_from_a_fixed_list(body: dict[str, object], kind: str) -> None:
    assert request_kind(body) == kind
