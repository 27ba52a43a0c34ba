"""Evaluations with tools: each scenario's evidence served by an in-repo MCP server, read by the
bot with trusted runs instead of asked of the engineer, and both runs compared."""

from __future__ import annotations

from pathlib import Path

from bot.cli.eval import scenario_tools
from domain.llm import MemoryCallRecorder
from domain.tools import ToolOutcome
from evals.cli import EXIT_USAGE, main
from evals.runner import RunOptions, run_suite
from evals.scenario import SCENARIO_DIR, load_scenarios
from evals.scoring.tools_mode import compare, tools_markdown
from evals.scripted.investigators import Style, scripted
from evals.tools_server import header

SCENARIOS = load_scenarios(only=["db-pool-cut", "k8s-oom-kill"])


async def test_with_the_evidence_as_tools_the_bot_reads_it_and_waits_less_for_people() -> None:
    recorder = MemoryCallRecorder(limit=10_000)
    play = scripted(Style.COMPETENT, recorder)
    without = await run_suite(SCENARIOS, play)
    served = RunOptions(tools=scenario_tools(SCENARIO_DIR))
    with_tools = await run_suite(SCENARIOS, play, options=served)

    comparison = compare(without, with_tools)
    assert comparison.without.found == comparison.with_tools.found == len(SCENARIOS)
    assert comparison.without.tool_runs == 0
    assert comparison.with_tools.tool_runs >= len(SCENARIOS)
    assert comparison.with_tools.round_trips < comparison.without.round_trips
    assert all(r.error is None for r in with_tools)
    table = tools_markdown(comparison)
    assert "| with tools | 2/2 |" in table
    assert "round trips to people" in table


async def test_the_scenario_server_serves_shared_items_and_nothing_it_does_not_hold() -> None:
    (scenario,) = load_scenarios(only=["db-pool-cut"])
    item = scenario.shared[0]
    async with scenario_tools(SCENARIO_DIR)(scenario) as tools:
        (spec,) = tools.catalogue()
        assert spec.trusted
        assert item.name in spec.description
        found = await tools.call(
            server="scenario", tool="read_evidence", arguments=item_of(item.name)
        )
        missing = await tools.call(
            server="scenario", tool="read_evidence", arguments=item_of("the-whole-database")
        )
    assert found.outcome is ToolOutcome.OK
    assert found.text.startswith(header(item.name))
    assert missing.outcome is ToolOutcome.ERROR


def item_of(name: str) -> dict[str, object]:
    return {"name": name}


def test_tools_needs_the_caller_that_can_start_the_servers(tmp_path: Path) -> None:
    assert main(["--tools", "--scenario", "db-pool-cut", "--out", str(tmp_path)]) == EXIT_USAGE
