"""Hubs over the fake MCP server (`tests/fakes/mcp_server.py`), run as a real child process."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator, Mapping
from typing import Any

import pytest_asyncio

from bot.mcp import McpHub
from domain.tools import parse_config
from tests.paths import REPO_ROOT

FAKE_TOOLS = [
    "echo",
    "whoami",
    "slow",
    "crash",
    "huge",
    "malformed",
    "delete_series",
    "set_flag",
    "show_config",
    "deploy_note",
    "run_check",
    "failing",
]


def fake_server(**keys: Any) -> dict[str, Any]:
    """An `mcpServers` entry that runs the fake server over stdio."""
    return {
        "command": sys.executable,
        "args": ["-m", "tests.fakes.mcp_server"],
        "cwd": str(REPO_ROOT),
        "includeTools": FAKE_TOOLS,
        "timeout": 2_000,
        **keys,
    }


def hub_of(servers: Mapping[str, object], environment: Mapping[str, str] | None = None) -> McpHub:
    config = parse_config({"mcpServers": dict(servers)}, environment or {})
    assert config.problems == ()
    return McpHub(config, max_result_bytes=64 * 1024)


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def shared() -> AsyncIterator[McpHub]:
    """One fake server for the tests that do not break it, started once."""
    hub = hub_of({"fake": fake_server(env={"FAKE_GREETING": "${GREETING}"})}, {"GREETING": "hi"})
    await hub.start()
    yield hub
    await hub.aclose()
