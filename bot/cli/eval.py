"""`fm eval`: the evaluation suite against the configured model, or a scripted investigator.

The options are the harness's own (`evals/cli.py`); this module only decides who investigates:
the model of FM_LLM_MODEL, through the same gateway the bot builds, unless `--investigator`
asks for a scripted one or no model is configured.
"""

from __future__ import annotations

import asyncio
import logging
import sys
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from bot.adapters.stores import SystemClock
from bot.llm.config import gateway_config
from bot.llm.gateway import LiteLLMGateway
from bot.mcp import McpHub
from bot.settings import Settings
from domain.llm import MemoryCallRecorder
from domain.tools import ToolsPort, parse_config

if TYPE_CHECKING:
    from evals.scenario import Scenario

EXIT_USAGE = 2
SCRIPTED_FLAG = "--investigator"
NO_HARNESS = (
    "fm eval: the evaluation harness (the evals package, with its scenarios) is not installed "
    "here; run it from a checkout of the repository."
)


def run_eval(settings: Settings, argv: Sequence[str]) -> int:
    """Run the suite; the harness's exit code (0 done, 1 unsafe suggestion shown, 2 misuse)."""
    try:
        from evals.cli import RECORD_LIMIT, main
    except ImportError:
        # The container image ships the bot without the harness and its scenario files.
        print(NO_HARNESS, file=sys.stderr)
        return EXIT_USAGE
    # Withheld commands are counted on the scoreboard; their warnings would only drown it.
    root = logging.getLogger()
    level = root.level
    root.setLevel(logging.ERROR)
    try:
        if not settings.llm_model or asks_for_scripted(argv):
            return main(list(argv), tools=scenario_tools)
        recorder = MemoryCallRecorder(limit=RECORD_LIMIT)
        gateway = LiteLLMGateway(gateway_config(settings), recorder=recorder, clock=SystemClock())
        return main(list(argv), llm=gateway, recorder=recorder, tools=scenario_tools)
    finally:
        root.setLevel(level)


def asks_for_scripted(argv: Sequence[str]) -> bool:
    """Whether `--investigator` was given: a scripted one plays even with a model configured."""
    return any(a == SCRIPTED_FLAG or a.startswith(f"{SCRIPTED_FLAG}=") for a in argv)


TOOLS_START_S = 60.0
ScenarioTools = Callable[["Scenario"], AbstractAsyncContextManager[ToolsPort]]


def scenario_tools(scenarios: Path) -> ScenarioTools:
    """Each scenario's evidence served by `evals.tools_server`, trusted, through the bot's hub."""
    import evals

    checkout = str(Path(evals.__file__).resolve().parent.parent)
    where = ["--scenarios", str(scenarios)]

    @asynccontextmanager
    async def started(scenario: Scenario) -> AsyncIterator[ToolsPort]:
        entry = {
            "command": sys.executable,
            "cwd": checkout,
            "args": ["-m", "evals.tools_server", *where, "--scenario", scenario.id],
            "includeTools": ["read_evidence"],
            "trust": True,
        }
        hub = McpHub(parse_config({"mcpServers": {"scenario": entry}}, {}))
        try:
            await asyncio.wait_for(hub.start(), TOOLS_START_S)
            yield hub
        finally:
            await hub.aclose()

    return started
