"""A scenario's evidence served as a read-only MCP tool, for evaluations with tools.

`python -m evals.tools_server --scenarios DIR --scenario ID` serves stdio. Its one tool,
`read_evidence`, answers with one of the scenario's shared items (a file of its folder, or its
typed text), named as the scenario names it; the tool's description lists them, so a model can
choose. What the engineer cannot get (`unavailable`) is not served: the tools see what the
team's systems hold, not more.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from mcp.server.mcpserver import MCPServer
from mcp.types import ToolAnnotations

from evals.scenario import SCENARIO_DIR, Scenario, load_scenarios

SERVER = "scenario"
TOOL = "read_evidence"
READ_ONLY = ToolAnnotations(read_only_hint=True, destructive_hint=False)


def header(name: str) -> str:
    """The first line of an answer: which item it is (the scripted investigator reads it)."""
    return f"evidence: {name}\n"


def build_server(scenario: Scenario) -> MCPServer:
    """An MCP server with `read_evidence` over the scenario's shared items."""
    server = MCPServer(f"faultmaven-eval-{scenario.id}")
    items = {item.name: item for item in scenario.shared}
    listing = "; ".join(f"{item.name}: {item.description}" for item in scenario.shared)

    @server.tool(
        name=TOOL,
        description=f"Read one item of the team's systems by its name. Items: {listing}",
        annotations=READ_ONLY,
    )
    def read_evidence(name: str) -> str:
        item = items.get(name)
        if item is None:
            raise ValueError(f"no item named {name!r}; the items are {', '.join(items)}")
        return header(name) + scenario.content(item).decode("utf-8", errors="replace")

    return server


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m evals.tools_server")
    parser.add_argument("--scenarios", type=Path, default=SCENARIO_DIR)
    parser.add_argument("--scenario", required=True)
    args = parser.parse_args()
    (scenario,) = load_scenarios(args.scenarios, [args.scenario])
    build_server(scenario).run()


if __name__ == "__main__":
    main()
