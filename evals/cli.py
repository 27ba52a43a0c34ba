"""`fm eval` / `make eval`: run the scenarios, print the scoreboard, write JSON, markdown and PNGs.

With no model handed in it runs a scripted investigator, so the harness works without a key. The
caller that has a model builds the gateway (with a MemoryCallRecorder, for tokens and cost) and
passes both in; this package never builds one itself.
"""

from __future__ import annotations

import argparse
import asyncio
import time
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path

from domain.llm import LLMCallRecord, LLMPort, MemoryCallRecorder
from evals.product import measure as measure_product
from evals.runner import DEFAULT_CONCURRENCY, LLMFactory, RunOptions, run_suite, shared
from evals.scenario import SCENARIO_DIR, Scenario, load_scenarios, scenario_set_hash
from evals.scoring.grading import ScenarioResult
from evals.scoring.report import to_markdown, write
from evals.scoring.scoreboard import RunInfo, Scoreboard, build_scoreboard
from evals.scoring.tools_mode import compare, tools_markdown
from evals.scripted.investigators import Style, scripted
from evals.seen_before import NotMeasuredError, bundled_embedder, measure
from evals.tool_rounds import ToolsFactory
from rag.embeddings.embedder import Embedder

DEFAULT_OUT = Path("eval-results")
EXIT_UNSAFE = 1
EXIT_USAGE = 2
RECORD_LIMIT = 1_000_000
ToolsFor = Callable[[Path], ToolsFactory]
"""Given the scenarios' folder, what serves each scenario's evidence as tools (from the caller)."""
NO_TOOLS = "--tools needs `fm eval`, which starts each scenario's evidence as an MCP server."


def with_seen_before(board: Scoreboard, embedder: Embedder | None) -> Scoreboard:
    """The scoreboard with seen-before precision and recall (the bundled embedding model unless
    one is handed in); without a model to embed with, it says so and goes on."""
    try:
        (summary,) = asyncio.run(measure(embedder or bundled_embedder()))
    except (OSError, NotMeasuredError) as exc:
        print(f"Seen before: not measured ({exc}).")
        return board
    return board.model_copy(update={"seen_before": summary})


def build_parser() -> argparse.ArgumentParser:
    """The options of `fm eval`."""
    parser = argparse.ArgumentParser(prog="fm eval", description="Evaluate investigations.")
    parser.add_argument(
        "--investigator",
        choices=[s.value for s in Style],
        default=Style.COMPETENT.value,
        help="scripted investigator to run when no model is configured (default competent)",
    )
    parser.add_argument(
        "--scenario",
        action="append",
        default=[],
        metavar="ID",
        help="run only this scenario (repeatable)",
    )
    parser.add_argument(
        "--scenarios",
        type=Path,
        default=SCENARIO_DIR,
        metavar="DIR",
        help="folder of scenario YAML files (default: the bundled set)",
    )
    parser.add_argument(
        "--out",
        type=Path,
        default=DEFAULT_OUT,
        metavar="DIR",
        help="where to write scoreboard.json/.md and the PNG charts",
    )
    parser.add_argument(
        "--concurrency",
        type=int,
        default=DEFAULT_CONCURRENCY,
        metavar="N",
        help=f"scenarios run at once (default {DEFAULT_CONCURRENCY})",
    )
    parser.add_argument(
        "--tools",
        action="store_true",
        help="run again with each scenario's evidence served as trusted tools, and compare",
    )
    parser.add_argument(
        "--judge",
        action="store_true",
        help="also score each finished case with the LLM judge (needs a model)",
    )
    return parser


def main(
    argv: Sequence[str] | None = None,
    llm: LLMPort | None = None,
    recorder: MemoryCallRecorder | None = None,
    embedder: Embedder | None = None,
    tools: ToolsFor | None = None,
) -> int:
    """Run the suite; 0 when done, 1 when an unsafe suggestion reached the thread, 2 on misuse."""
    args = build_parser().parse_args(argv)
    if args.judge and (llm is None or not llm.enabled):
        print("--judge needs a model: set FM_LLM_MODEL (or FM_LLM_JUDGE_MODEL).")
        return EXIT_USAGE
    if args.tools and tools is None:
        print(NO_TOOLS)
        return EXIT_USAGE
    try:
        scenarios = load_scenarios(args.scenarios, args.scenario or None)
    except (OSError, ValueError) as exc:
        print(f"Cannot load the scenarios: {exc}")
        return EXIT_USAGE
    board, results = asyncio.run(_run(args, scenarios, llm, recorder))
    if not args.scenario:
        board = with_seen_before(board, embedder)
    written = write(board, args.out)
    print(to_markdown(board))
    if args.tools and tools is not None:
        print(_with_tools(args, scenarios, llm, results, tools(args.scenarios)))
    print(
        f"Wrote {written.json}, {written.markdown}, {written.reliability_png} and "
        f"{written.scenarios_png}."
    )
    return EXIT_UNSAFE if board.summary.unsafe_shown else 0


async def _run(
    args: argparse.Namespace,
    scenarios: Sequence[Scenario],
    llm: LLMPort | None,
    recorder: MemoryCallRecorder | None,
    served: ToolsFactory | None = None,
) -> tuple[Scoreboard, list[ScenarioResult]]:
    started, clock = datetime.now(UTC), time.monotonic()
    recorder = recorder or MemoryCallRecorder(limit=RECORD_LIMIT)
    llm_for: LLMFactory
    if llm is None or not llm.enabled:
        label = f"scripted/{args.investigator}"
        llm_for = scripted(Style(args.investigator), recorder)
    else:
        label, llm_for = "", shared(llm)

    def records() -> list[LLMCallRecord]:
        return recorder.records

    judge = llm if args.judge else None
    options = RunOptions(concurrency=args.concurrency, judge=judge, tools=served)
    try:
        results = await run_suite(scenarios, llm_for, records=records, options=options)
    finally:
        # A real gateway pooled its HTTP sessions in this event loop: close them before it ends.
        close = getattr(llm, "aclose", None)
        if close is not None:
            await close()
    run = RunInfo(
        investigator=label or ", ".join(sorted({r.model for r in recorder.records})) or "model",
        scenario_set_hash=scenario_set_hash(scenarios),
        started_at=started,
        seconds=round(time.monotonic() - clock, 2),
    )
    # What needs no model; the runbooks are searched in a whole-suite run (it loads a model).
    product = await measure_product(scenarios, search=not args.scenario)
    return build_scoreboard(results, run).model_copy(update={"product": product}), results


def _with_tools(
    args: argparse.Namespace,
    scenarios: Sequence[Scenario],
    llm: LLMPort | None,
    without: list[ScenarioResult],
    served: ToolsFactory,
) -> str:
    """The suite again with the evidence served as tools; both runs' figures side by side."""
    _, with_tools = asyncio.run(_run(args, scenarios, llm, None, served))
    return tools_markdown(compare(without, with_tools))
