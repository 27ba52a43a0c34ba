"""`fm mcp tools`: start the configured MCP servers and print the catalogue the model sees."""

from __future__ import annotations

import asyncio
import json
import logging
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from bot.settings import Settings, variables

if TYPE_CHECKING:
    from bot.mcp import ServerStatus
    from domain.tools import ToolSpec

NOT_CONFIGURED = (
    "FM_MCP_CONFIG is not set, so the bot reads no evidence from the team's own tools;"
    ' see README, "Letting FaultMaven look for itself".'
)


@dataclass(frozen=True)
class McpReport:
    """What starting the configured servers found."""

    configured: bool
    error: str | None = None
    problems: list[str] = field(default_factory=list)
    statuses: list[ServerStatus] = field(default_factory=list)
    catalogue: list[ToolSpec] = field(default_factory=list)


InspectServers = Callable[[Settings], McpReport]


def inspect_servers(settings: Settings, environment: Mapping[str, str] | None = None) -> McpReport:
    """Read FM_MCP_CONFIG, start every server once, list their tools, and stop them."""
    if settings.mcp_config is None:
        return McpReport(configured=False)
    from bot.mcp import McpHub, load_tools_config
    from domain.tools import ToolConfigError

    # What the hub would log as warnings is printed by the caller, once, in its own words.
    logging.getLogger("bot.mcp").setLevel(logging.ERROR)

    try:
        config = load_tools_config(settings.mcp_config, variables(environment))
    except ToolConfigError as exc:
        return McpReport(configured=True, error=str(exc))

    async def look() -> McpReport:
        hub = McpHub(config)
        try:
            await hub.start()
            return McpReport(True, None, hub.config_problems, hub.status(), hub.catalogue())
        finally:
            await hub.aclose()

    return asyncio.run(look())


def mcp_tools(settings: Settings, *, as_json: bool, inspect: InspectServers | None = None) -> int:
    """Print the catalogue; servers that are down and unusable entries go to standard error."""
    report = (inspect or inspect_servers)(settings)
    if not report.configured:
        print(NOT_CONFIGURED, file=sys.stderr)
        return 0
    if report.error is not None:
        print(f"fm mcp tools: {report.error}", file=sys.stderr)
        return 1
    for problem in report.problems + [p for s in report.statuses for p in s.problems]:
        print(f"warning: {problem}", file=sys.stderr)
    for status in report.statuses:
        if not status.running:
            print(f"warning: {status.detail}", file=sys.stderr)
    if as_json:
        print(json.dumps([spec.model_dump() for spec in report.catalogue], indent=2))
    else:
        print("\n\n".join(_described(spec) for spec in report.catalogue) or "No tool is allowed.")
    return 0


def _described(spec: ToolSpec) -> str:
    consent = "runs without asking (trust)" if spec.trusted else "asks a person first"
    lines = [f"{spec.name}  ({spec.server} › {spec.tool}; {consent})"]
    if spec.description:
        lines.append(f"  {spec.description.splitlines()[0]}")
    arguments = _arguments(spec.input_schema)
    lines.append(f"  arguments: {arguments or 'none'}")
    return "\n".join(lines)


def _arguments(schema: Mapping[str, Any]) -> str:
    properties = schema.get("properties", {})
    required = set(schema.get("required", []))
    if not isinstance(properties, dict):
        return ""
    words = []
    for name, detail in properties.items():
        kind = detail.get("type", "any") if isinstance(detail, dict) else "any"
        words.append(f"{name} ({kind}{', required' if name in required else ''})")
    return ", ".join(words)
