"""Evaluations with tools: the same scenarios without and with their evidence served as tools.

What changes when the bot can read the team's systems itself: how many times it had to wait for
a person to bring something (round trips to people), how many turns it took to name the root
cause, whether it found it, and how many tool runs it made.
"""

from __future__ import annotations

from collections.abc import Sequence
from statistics import mean

from pydantic import BaseModel

from evals.scenario import Kind
from evals.scoring.grading import ScenarioResult


class ToolsFigures(BaseModel):
    """One mode's figures over the root-cause scenarios."""

    scenarios: int
    found: int
    round_trips: int
    """Round trips to people, summed over the scenarios."""
    mean_round_trips: float
    mean_turns_to_root_cause: float | None
    """Over the scenarios whose root cause was found."""
    tool_runs: int


class ToolsComparison(BaseModel):
    """Without tools, then with them."""

    without: ToolsFigures
    with_tools: ToolsFigures


def figures(results: Sequence[ScenarioResult]) -> ToolsFigures:
    """The figures of one run, over its root-cause scenarios."""
    chosen = [r for r in results if r.kind is Kind.ROOT_CAUSE]
    turns = [r.turns_to_root_cause for r in chosen if r.turns_to_root_cause is not None]
    trips = sum(r.round_trips for r in chosen)
    return ToolsFigures(
        scenarios=len(chosen),
        found=sum(r.found for r in chosen),
        round_trips=trips,
        mean_round_trips=round(trips / len(chosen), 2) if chosen else 0.0,
        mean_turns_to_root_cause=round(mean(turns), 2) if turns else None,
        tool_runs=sum(r.tool_runs for r in chosen),
    )


def compare(
    without: Sequence[ScenarioResult], with_tools: Sequence[ScenarioResult]
) -> ToolsComparison:
    """Both runs' figures."""
    return ToolsComparison(without=figures(without), with_tools=figures(with_tools))


def tools_markdown(comparison: ToolsComparison) -> str:
    """The comparison as a small table."""
    rows = [("without tools", comparison.without), ("with tools", comparison.with_tools)]
    lines = [
        "## With the team's tools (root-cause scenarios)",
        "",
        "| | found | round trips to people | per scenario | turns to root cause | tool runs |",
        "|---|---|---|---|---|---|",
    ]
    for name, f in rows:
        turns = "–" if f.mean_turns_to_root_cause is None else f"{f.mean_turns_to_root_cause:g}"
        lines.append(
            f"| {name} | {f.found}/{f.scenarios} | {f.round_trips} | {f.mean_round_trips:g} "
            f"| {turns} | {f.tool_runs} |"
        )
    return "\n".join(lines)
