"""What watching the bot costs a turn: the metrics a turn updates, and rendering `/metrics`.

A turn updates, on the bot's own path: its acknowledgement, the turn (its span, log context,
outcome and duration), its model call (counted with tokens and cost), and a span per Slack Web
API call. Those calls are made here as a turn makes them, ``TURNS`` times, with tracing off as
it ships; then again with tracing on (OpenTelemetry, exported to memory). Then `/metrics` is
rendered from the registry those turns filled, as Prometheus scrapes it. Processor time, so the
figure holds on a busy machine.

    python -m tests.benchmarks.bench_metrics [--smoke]
"""

from __future__ import annotations

import argparse
import asyncio
import time

from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from bot.observability.metrics import observe_ack, observe_model_call, render
from bot.observability.tracing import configure_tracing, shutdown_tracing, span
from bot.observability.turns import note_turn, observed_turn
from domain.llm import LLMCallOutcome, LLMCallRecord

TARGET_MS = 1.0
SLACK_CALLS = 6
"""Web API calls of a typical turn: the status line on and off, the answer, the header…"""
TEMPLATES = ("consulting", "investigating", "terminal", "rewrite_query")


def one_turn(n: int) -> None:
    """The instrumentation one turn runs, in the order the bot runs it."""
    observe_ack("event:message", 0.012)
    with observed_turn(team_id="T0BENCH01", turn_id=f"Ev{n:08d}"):
        note_turn(case_id=f"case_{n:012x}")
        with span("retrieval", **{"fm.retrieval.source": "global"}):
            pass
        with span("llm.call", **{"gen_ai.request.model": "openai/gpt-4o-mini"}):
            pass
        observe_model_call(
            LLMCallRecord(
                model="openai/gpt-4o-mini",
                template=TEMPLATES[n % len(TEMPLATES)],
                template_hash="0" * 64,
                latency_ms=1800,
                prompt_tokens=4200,
                completion_tokens=350,
                cost_usd=0.0008,
                outcome=LLMCallOutcome.OK,
            )
        )
        for _ in range(SLACK_CALLS):
            with span("slack.api", **{"fm.slack.method": "chat.postMessage"}):
                pass


def per_turn_ms(turns: int) -> float:
    """Processor milliseconds per turn of ``one_turn``, over ``turns`` turns."""
    started = time.process_time()
    for n in range(turns):
        one_turn(n)
    return (time.process_time() - started) / turns * 1000


async def scrape_ms(scrapes: int) -> tuple[float, int]:
    """Processor milliseconds to render /metrics, and its size in bytes."""
    started = time.process_time()
    for _ in range(scrapes):
        body = await render()
    return (time.process_time() - started) / scrapes * 1000, len(body)


def main() -> None:
    """Measure and print the three figures."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--smoke", action="store_true", help="small sizes: that it runs")
    smoke = parser.parse_args().smoke
    turns, scrapes = (200, 5) if smoke else (20_000, 200)
    per_turn_ms(turns // 10)  # first-call costs: label children, imports
    off = per_turn_ms(turns)
    configure_tracing(endpoint=None, exporter=InMemorySpanExporter(), batch=False)
    try:
        on = per_turn_ms(turns // 10)
    finally:
        shutdown_tracing()
    scrape, size = asyncio.run(scrape_ms(scrapes))
    verdict = "meets" if off < TARGET_MS else "misses"
    print(f"watching the bot, processor time ({turns} turns):")
    lines = [
        ("/metrics cost per turn (tracing off)", f"{off * 1000:8.1f} µs", f"{verdict} < 1 ms"),
        ("with tracing on (spans to memory)", f"{on * 1000:8.1f} µs", "per turn"),
        (
            f"/metrics scrape ({size / 1024:.0f} KiB rendered)",
            f"{scrape * 1000:8.1f} µs",
            "per scrape",
        ),
    ]
    for label, figure, note in lines:
        print(f"  {label:<40} {figure}   {note}")


if __name__ == "__main__":
    main()
