"""The bot's Prometheus metrics: every one defined here, in one registry, with bounded labels.

Labels carry names the code chooses (a request kind, a model, a prompt template, an outcome, a
Web API method, Slack's error code) and never case text, user ids or anything else unbounded:
every label value passes through `bounded()` first. Updating a metric costs microseconds, so
the instrumentation is always on; `/metrics` renders the registry when Prometheus scrapes it.
"""

from __future__ import annotations

import re
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from prometheus_client import (
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    PlatformCollector,
    ProcessCollector,
    generate_latest,
)
from prometheus_client.exposition import CONTENT_TYPE_PLAIN_0_0_4

from domain.llm import LLMCallRecord

REGISTRY = CollectorRegistry(auto_describe=True)
ProcessCollector(registry=REGISTRY)
PlatformCollector(registry=REGISTRY)

# The text format every Prometheus since 2.0 reads (the library's newest is 1.0.0).
CONTENT_TYPE = CONTENT_TYPE_PLAIN_0_0_4
OTHER = "other"
_LABEL = re.compile(r"[A-Za-z0-9_.:/@+-]{1,80}")
_ACK_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 3.0, 5.0)
_TURN_BUCKETS = (0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 20.0, 30.0, 60.0, 120.0, 300.0)

SLACK_ACK_SECONDS = Histogram(
    "fm_slack_ack_seconds",
    "Time from receiving a Slack request to acknowledging it (Slack allows 3 s)",
    ["kind"],
    buckets=_ACK_BUCKETS,
    registry=REGISTRY,
)
INBOX_DEPTH = Gauge(
    "fm_inbox_depth",
    "Work items recorded and not finished (pending or processing), all replicas",
    registry=REGISTRY,
)
INBOX_OLDEST_AGE_SECONDS = Gauge(
    "fm_inbox_oldest_age_seconds",
    "Age of the oldest unfinished work item (0 when the inbox is empty)",
    registry=REGISTRY,
)
TURNS = Counter("fm_turns", "Turns taken, by outcome", ["outcome"], registry=REGISTRY)
TURN_SECONDS = Histogram(
    "fm_turn_duration_seconds",
    "Wall time of a turn, model calls included, by outcome",
    ["outcome"],
    buckets=_TURN_BUCKETS,
    registry=REGISTRY,
)
LLM_CALLS = Counter(
    "fm_llm_calls",
    "Model calls, by model, prompt template and outcome",
    ["model", "template", "outcome"],
    registry=REGISTRY,
)
LLM_CALL_SECONDS = Histogram(
    "fm_llm_call_duration_seconds",
    "Latency of one model call, by model and outcome",
    ["model", "outcome"],
    buckets=_TURN_BUCKETS,
    registry=REGISTRY,
)
LLM_TOKENS = Counter(
    "fm_llm_tokens",
    "Tokens sent (prompt) and received (completion), by model and prompt template",
    ["model", "template", "direction"],
    registry=REGISTRY,
)
LLM_COST_USD = Counter(
    "fm_llm_cost_usd",
    "Cost of model calls in US dollars (litellm's price list; unknown prices count 0)",
    ["model", "template"],
    registry=REGISTRY,
)
LLM_BUDGET_SPENT_RATIO = Gauge(
    "fm_llm_budget_spent_ratio",
    "Share of the daily model budget spent today (0 to 1 and beyond; absent without a budget)",
    registry=REGISTRY,
)
TOOL_CALLS = Counter(
    "fm_tool_calls",
    "Tool calls the model asked for, by tool server and outcome (ok, no_data, error)",
    ["server", "outcome"],
    registry=REGISTRY,
)
ALERT_NOTIFICATIONS = Counter(
    "fm_alert_notifications",
    "Alertmanager notifications received, by outcome",
    ["outcome"],
    registry=REGISTRY,
)
SLACK_API_ERRORS = Counter(
    "fm_slack_api_errors",
    "Slack Web API calls that failed, by method and Slack's error code",
    ["method", "error"],
    registry=REGISTRY,
)
SLACK_RATE_LIMITED = Counter(
    "fm_slack_rate_limited",
    "Slack Web API answers of HTTP 429 (rate limited), by method",
    ["method"],
    registry=REGISTRY,
)


def bounded(value: object) -> str:
    """A label value from a name the code chose; anything else (text, spaces, long) is "other"."""
    text = str(value)
    return text if _LABEL.fullmatch(text) else OTHER


def observe_ack(kind: str, seconds: float) -> None:
    """A Slack request acknowledged after ``seconds``."""
    SLACK_ACK_SECONDS.labels(bounded(kind)).observe(seconds)


def observe_turn(outcome: str, seconds: float) -> None:
    """A turn ended with ``outcome`` after ``seconds``."""
    label = bounded(outcome)
    TURNS.labels(label).inc()
    TURN_SECONDS.labels(label).observe(seconds)


def observe_model_call(call: LLMCallRecord) -> None:
    """One model call, as the gateway records it: counted, timed, its tokens and cost added."""
    model, template, outcome = bounded(call.model), bounded(call.template), bounded(call.outcome)
    LLM_CALLS.labels(model, template, outcome).inc()
    LLM_CALL_SECONDS.labels(model, outcome).observe(call.latency_ms / 1000)
    if call.prompt_tokens:
        LLM_TOKENS.labels(model, template, "prompt").inc(call.prompt_tokens)
    if call.completion_tokens:
        LLM_TOKENS.labels(model, template, "completion").inc(call.completion_tokens)
    if call.cost_usd:
        LLM_COST_USD.labels(model, template).inc(call.cost_usd)


def set_budget_spent_ratio(ratio: float) -> None:
    """The share of the daily model budget spent so far (the budget's owner sets it)."""
    LLM_BUDGET_SPENT_RATIO.set(ratio)


def observe_tool_call(server: str, outcome: str) -> None:
    """A tool call the model asked for, and how it ended."""
    TOOL_CALLS.labels(bounded(server), bounded(outcome)).inc()


def observe_alert(outcome: str) -> None:
    """An Alertmanager notification and what became of it."""
    ALERT_NOTIFICATIONS.labels(bounded(outcome)).inc()


def observe_slack_error(method: str, error: str, *, rate_limited: bool) -> None:
    """A Web API call Slack refused (``rate_limited``: it answered HTTP 429)."""
    if rate_limited:
        SLACK_RATE_LIMITED.labels(bounded(method)).inc()
    else:
        SLACK_API_ERRORS.labels(bounded(method), bounded(error)).inc()


@dataclass(frozen=True)
class Backlog:
    """The inbox at one moment: unfinished items, and how long the oldest has waited."""

    depth: int
    oldest_age_s: float


BacklogProbe = Callable[[], Awaitable[Backlog]]


async def render(backlog: BacklogProbe | None = None) -> bytes:
    """The registry in Prometheus' text format, the inbox read first when a probe is given."""
    if backlog is not None:
        now = await backlog()
        INBOX_DEPTH.set(now.depth)
        INBOX_OLDEST_AGE_SECONDS.set(now.oldest_age_s)
    rendered: bytes = generate_latest(REGISTRY)
    return rendered


class Stopwatch:
    """Seconds since it was made, on the monotonic clock."""

    __slots__ = ("_started",)

    def __init__(self) -> None:
        self._started = time.perf_counter()

    def seconds(self) -> float:
        """Seconds elapsed."""
        return time.perf_counter() - self._started
