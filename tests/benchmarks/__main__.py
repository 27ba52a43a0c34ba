"""`make bench`: every figure the README documents, measured; `make bench-smoke`: the same runs at
small sizes, checking only that each benchmark runs to the end and prints all its figures.

Each measurement runs in its own process (peak memory is per process, and the model is loaded
once per process as in the bot). Synthetic logs are written here first, from the LogHub data.
The retrieval figures are printed as one JSON object next to their targets; the bot's as the
lines each benchmark prints. Speed never fails a run (machines differ; the README records what
was measured where); a benchmark that stops, or a figure missing from what it printed, does.

    python -m tests.benchmarks [--smoke]
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import io
import json
import math
import os
import re
import runpy
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.benchmarks.model_copy import SHARED
from tests.benchmarks.synthetic import synthetic_log


@dataclass(frozen=True)
class Sizes:
    """How large the retrieval benchmarks' inputs are."""

    small_log: int = 100_000
    large_log: int = 1_000_000
    naive_sample: int = 64
    query_small: int = 100_000
    query_large: int = 1_000_000
    lines_per_case: int = 100_000
    recall_systems: int | None = None


SMOKE = Sizes(
    small_log=2_000,
    large_log=6_000,
    naive_sample=8,
    query_small=500,
    query_large=1_000,
    lines_per_case=2_000,
    recall_systems=2,
)
TARGETS = {
    "recall_at_5": ">= 0.9",
    "ingest_100k_searchable_s": "< 5",
    "ingest_100k_total_s": "< 20",
    "ingest_1m_total_s": "< 120",
    "ingest_1m_peak_rss_mb": "< 2048",
    "naive_speedup": ">= 20",
    "query_100k_chunks_p50_ms": "< 40",
    "query_1m_chunks_p50_ms": "< 100",
}
BOT = (
    "bot_latency",
    "bot_floor",
    "bench_startup",
    "bot_start",
    "bench_metrics",
    "bench_tools",
    "bench_upload_wait",
)
"""The Slack edge under load (50 threads, a 2 s fake model), what no scheduling can remove from
a burst turn (the model call and the knowledge search), the command line's cold start, the
bot's own start (healthy → ready, acks meanwhile), what watching the bot costs a turn, what a
trusted tool round adds to a turn, and how long a person waits for a shared log's findings."""
FIGURES: dict[str, tuple[str, ...]] = {
    "bot_latency": (
        "all answered in",
        "acknowledgement",
        "time to the status line",
        "bot overhead per turn (no model)",
        "of which before the model call",
        "bot overhead per turn, one at a time",
    ),
    "bot_floor": (
        "model call through litellm",
        "knowledge search (runbooks + KB)",
        "the median case's model call goes out",
    ),
    "bench_startup": (
        "fm --help",
        "fm doctor",
        "fm kb search (ONNX copy)",
        "fm kb search (torch, no copy)",
    ),
    "bot_start": (
        "process start → listening",
        "/readyz 200",
        "while warming up",
        "mentions: case shown after worst",
    ),
    "bench_metrics": (
        "/metrics cost per turn",
        "with tracing on",
        "/metrics scrape",
    ),
    "bench_tools": (
        "turn without a tool round",
        "turn with a trusted tool round",
        "tool round overhead per turn",
    ),
    "bench_upload_wait": (
        "upload to findings",
        "acknowledgement",
        "peak memory",
        "download",
        "decode+redact",
        "templates+findings",
        "chunk+index text",
        "vectors",
    ),
}
"""What each bot benchmark must print: every label, on a line with a number after it."""
REPEATS = {"bot_start": 2, "bench_upload_wait": 2}
"""Benchmarks that print their figures more than once (the start-up: a restart, a new replica;
the upload: one block per log size, at least two sizes)."""


def _run(module: str, *args: str, here: bool = False) -> dict[str, Any]:
    """Run one benchmark module (in a fresh interpreter unless ``here``); parse its JSON line."""
    output = printed_here(module, *args) if here else printed(module, *args)
    result: dict[str, Any] = json.loads(output.strip().splitlines()[-1])
    return result


def printed_here(module: str, *args: str) -> str:
    """Run one benchmark module in this process (the smoke run: the model loads once)."""
    started, argv, out = time.monotonic(), sys.argv, io.StringIO()
    sys.argv = [module, *args]
    try:
        with contextlib.redirect_stdout(out):
            runpy.run_module(f"tests.benchmarks.{module}", run_name="__main__")
    finally:
        sys.argv = argv
    print(f"[{' '.join((module, *args))}: {time.monotonic() - started:.0f} s]", file=sys.stderr)
    return out.getvalue()


def retrieval(sizes: Sizes) -> dict[str, Any]:
    """Ingestion, recall and search: the measured values next to their targets.

    Each runs in its own process, as its peak memory is its own; the smoke run keeps them in
    this one, so the embedding model is loaded once.
    """
    here = sizes == SMOKE
    run = functools.partial(_run, here=here)
    with tempfile.TemporaryDirectory(prefix="fm-bench-") as folder:
        small, large = Path(folder) / "small.log", Path(folder) / "large.log"
        small.write_bytes(synthetic_log(sizes.small_log, seed=1))
        large.write_bytes(synthetic_log(sizes.large_log, seed=2))
        ingest_100k = run("bench_ingest", str(small))
        ingest_1m = run("bench_ingest", str(large), "--naive-sample", str(sizes.naive_sample))
    systems = [] if sizes.recall_systems is None else [str(sizes.recall_systems)]
    recall = run("bench_recall", *systems)
    per_case = str(sizes.lines_per_case)
    query_100k = run("bench_query", str(sizes.query_small), per_case)
    query_1m = run("bench_query", str(sizes.query_large), per_case)
    naive_s = ingest_1m["chunks"] / ingest_1m["naive_chunks_per_s"]
    measured = {
        "recall_at_5": recall["recall_at_5"],
        "ingest_100k_searchable_s": ingest_100k["searchable_s"],
        "ingest_100k_total_s": ingest_100k["total_s"],
        "ingest_1m_total_s": ingest_1m["total_s"],
        "ingest_1m_peak_rss_mb": ingest_1m["peak_rss_mb"],
        "naive_speedup": round(naive_s / ingest_1m["total_s"], 1),
        "query_100k_chunks_p50_ms": query_100k["p50_ms"],
        "query_1m_chunks_p50_ms": query_1m["p50_ms"],
    }
    return {
        "sizes": "smoke (small sizes: the figures say nothing)" if sizes == SMOKE else "full",
        "targets": {name: {"value": measured[name], "target": TARGETS[name]} for name in TARGETS},
        "met": all(_meets(measured[name], TARGETS[name]) for name in TARGETS),
        "details": {
            "recall": recall,
            "ingest_100k": ingest_100k,
            "ingest_1m": ingest_1m | {"naive_estimated_s": round(naive_s)},
            "query_100k": query_100k,
            "query_1m": query_1m,
        },
    }


def missing_figures(module: str, output: str) -> list[str]:
    """The figures ``module`` should have printed and did not (or printed without a number)."""
    lines = output.splitlines()
    times = REPEATS.get(module, 1)
    return [
        label
        for label in FIGURES[module]
        if sum(_figure_after(line, label) for line in lines) < times
    ]


def _figure_after(line: str, label: str) -> bool:
    at = line.find(label)
    rest = line[at + len(label) :] if at >= 0 else ""
    return bool(re.search(r"\d", rest)) and "nan" not in rest.lower()


def _unset_targets(report: dict[str, Any]) -> list[str]:
    """Retrieval figures that are missing or not a number."""
    return [
        name
        for name, entry in report["targets"].items()
        if not isinstance(entry["value"], int | float) or math.isnan(entry["value"])
    ]


def main() -> None:
    """Measure everything, print it, and fail if a benchmark did not print every figure."""
    parser = argparse.ArgumentParser(prog="python -m tests.benchmarks")
    parser.add_argument("--smoke", action="store_true", help="small sizes: that everything runs")
    smoke = parser.parse_args().smoke
    # As the Makefile sets it: the smoke run keeps LanceDB in this process, and its notices.
    os.environ.setdefault("LANCEDB_LOG", "error")
    report = retrieval(SMOKE if smoke else Sizes())
    print(json.dumps(report, indent=2), flush=True)
    problems = [f"retrieval: {name} has no value" for name in _unset_targets(report)]
    with tempfile.TemporaryDirectory(prefix="fm-bench-model-") as copy:
        printed("model_copy", copy)
        os.environ[SHARED] = copy
        for module in BOT:
            output = printed(module, *(["--smoke"] if smoke else []))
            print(output, end="", flush=True)
            missing = missing_figures(module, output)
            problems += [f"{module}: no figure for {label!r}" for label in missing]
    if problems:
        sys.exit("benchmarks incomplete:\n  " + "\n  ".join(problems))
    print("every benchmark ran to the end and printed all its figures")


def printed(module: str, *args: str) -> str:
    """Run one benchmark module in a fresh interpreter; what it printed (its errors shown)."""
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", f"tests.benchmarks.{module}", *args],
        check=False,
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        sys.stderr.write(done.stdout + done.stderr)
        sys.exit(f"benchmark {module} failed (exit code {done.returncode})")
    print(f"[{' '.join((module, *args))}: {time.monotonic() - started:.0f} s]", file=sys.stderr)
    return done.stdout


def _meets(value: float, target: str) -> bool:
    operator, bound = target.split()
    limit = float(bound)
    return value >= limit if operator == ">=" else value < limit


if __name__ == "__main__":
    main()
