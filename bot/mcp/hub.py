"""Every configured MCP server, started once and kept: the catalogue and the calls, audited.

`McpHub` is the `ToolsPort` the turn engine calls. A call runs only if its tool is allowlisted
and read-only and its arguments pass `domain.tools`; a server that is not running is started on
the call (a crashed one is started again); whatever happens comes back as a `ToolResult` with one
sentence and a `ToolCallRecord`, never as an exception. One server failing leaves the others.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime

from mcp.shared.exceptions import MCPError
from mcp.types import CONNECTION_CLOSED, CallToolResult
from pydantic import ValidationError

from bot.mcp.connection import START_TIMEOUT_S, Connection, ServerDownError
from bot.mcp.replies import reply_text
from bot.observability.tools import observed_tool_call
from domain.base import utc_now
from domain.redaction import redact_text
from domain.tools import (
    DEFAULT_MAX_BYTES,
    Evidence,
    ServerConfig,
    ToolInfo,
    ToolOutcome,
    ToolResult,
    ToolsConfig,
    ToolSpec,
    allowed_specs,
    argument_problems,
    as_evidence,
    record,
    start_problems,
)

logger = logging.getLogger(__name__)

RESTART_PAUSE_S = 10.0
"""A server that failed to start is not tried again sooner, however often it is asked."""


@dataclass(frozen=True)
class ServerStatus:
    """How one server stands, for `fm doctor` and the logs."""

    name: str
    transport: str
    running: bool
    detail: str
    offered: tuple[str, ...]
    allowed: tuple[str, ...]
    problems: tuple[str, ...]


@dataclass
class _Server:
    config: ServerConfig
    connection: Connection
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    tools: list[ToolInfo] = field(default_factory=list)
    specs: dict[str, ToolSpec] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    down: str | None = "not started yet"
    failed_at: float | None = None


@dataclass
class _Call:
    server: str
    tool: str
    arguments: Mapping[str, object]
    started_at: datetime
    clock: float = field(default_factory=time.monotonic)

    def result(
        self, outcome: ToolOutcome, sentence: str, evidence: Evidence | None = None
    ) -> ToolResult:
        duration = int((time.monotonic() - self.clock) * 1000)
        sentence = redact_text(sentence)  # it may quote what the model sent
        audit = record(
            server=self.server,
            tool=self.tool,
            arguments=self.arguments,
            started_at=self.started_at,
            duration_ms=duration,
            outcome=outcome,
            detail=sentence,
            received=evidence.received if evidence else 0,
            kept=evidence.kept if evidence else 0,
        )
        return ToolResult(
            outcome=outcome,
            text=evidence.text if evidence and outcome is not ToolOutcome.NO_DATA else "",
            sentence=sentence,
            truncated=evidence.truncated if evidence else False,
            record=audit,
        )


class McpHub:
    """The configured servers; `start` once, then `catalogue` and `call`; `aclose` at the end."""

    def __init__(
        self,
        config: ToolsConfig,
        *,
        max_result_bytes: int = DEFAULT_MAX_BYTES,
        now: Callable[[], datetime] = utc_now,
        start_timeout_s: float = START_TIMEOUT_S,
    ) -> None:
        self._servers = {
            server.name: _Server(server, Connection(server, start_timeout_s=start_timeout_s))
            for server in config.servers
        }
        self._config_problems = list(config.problems)
        self._max_bytes = max_result_bytes
        self._now = now

    async def start(self) -> None:
        """Start every server at once; each failure is logged and kept for `status`."""
        await asyncio.gather(*(self._ensure_running(entry) for entry in self._servers.values()))

    def catalogue(self) -> list[ToolSpec]:
        """The tools the model may ask for, across servers that have listed their tools."""
        return [spec for entry in self._servers.values() for spec in entry.specs.values()]

    def status(self) -> list[ServerStatus]:
        """Each server: running or why not, its tools, which may run, and what was refused."""
        return [_status(entry) for entry in self._servers.values()]

    @property
    def config_problems(self) -> list[str]:
        """Entries of the configuration that could not be used at all."""
        return list(self._config_problems)

    @observed_tool_call
    async def call(self, *, server: str, tool: str, arguments: Mapping[str, object]) -> ToolResult:
        """Run one tool of one server, audited; see the module docstring for the rules."""
        call = _Call(server, tool, arguments, self._now())
        try:
            return await self._call(call)
        except Exception as exc:  # the last guard: a call never raises into a turn
            logger.error(
                "MCP call failed unexpectedly",
                extra={"server": server, "tool": tool, "error": type(exc).__name__},
            )
            return call.result(
                ToolOutcome.ERROR, f"{_label(call)} failed unexpectedly ({type(exc).__name__})."
            )

    async def aclose(self) -> None:
        """Stop every server's process and session."""
        await asyncio.gather(*(entry.connection.close() for entry in self._servers.values()))

    async def _call(self, call: _Call) -> ToolResult:
        entry = self._servers.get(call.server)
        if entry is None:
            return call.result(
                ToolOutcome.REFUSED, f"No MCP server named {call.server!r} is configured."
            )
        if call.tool not in entry.config.include_tools:
            return call.result(ToolOutcome.REFUSED, f"{_label(call)} is not in includeTools.")
        if call.tool in entry.config.exclude_tools:
            return call.result(ToolOutcome.REFUSED, f"{_label(call)} is in excludeTools.")
        if not await self._ensure_running(entry):
            return call.result(ToolOutcome.ERROR, f"{_label(call)} was not run: {entry.down}.")
        spec = entry.specs.get(call.tool)
        if spec is None:
            offered = call.tool in {tool.name for tool in entry.tools}
            why = (
                "it is annotated as changing things" if offered else "the server does not offer it"
            )
            return call.result(ToolOutcome.REFUSED, f"{_label(call)} is not allowed: {why}.")
        problems = argument_problems(call.arguments, spec.input_schema)
        if problems:
            return call.result(
                ToolOutcome.REFUSED, f"{_label(call)} was not run: {'; '.join(problems[:5])}."
            )
        return await self._run(entry, call)

    async def _run(self, entry: _Server, call: _Call) -> ToolResult:
        timeout_s = entry.config.timeout_s
        try:
            reply = await entry.connection.call(call.tool, call.arguments, timeout_s)
        except TimeoutError:
            return call.result(
                ToolOutcome.ERROR, f"{_label(call)} did not answer within {timeout_s:g} s."
            )
        except ValidationError:
            return call.result(
                ToolOutcome.ERROR,
                f"{_label(call)} answered with a reply that is not a valid MCP result.",
            )
        except MCPError as exc:
            if exc.error.code != CONNECTION_CLOSED:
                return call.result(
                    ToolOutcome.ERROR,
                    f"{_label(call)} was refused by the server ({_first_line(exc.error.message)}).",
                )
            entry.connection.mark_broken()
            return call.result(
                ToolOutcome.ERROR,
                f"{_label(call)} failed: the server stopped while answering (it is started"
                " again on the next call).",
            )
        except (ServerDownError, OSError, RuntimeError) as exc:
            entry.connection.mark_broken()
            return call.result(
                ToolOutcome.ERROR,
                f"{_label(call)} failed: the connection broke ({type(exc).__name__}).",
            )
        return self._shaped(call, reply)

    def _shaped(self, call: _Call, reply: CallToolResult) -> ToolResult:
        evidence = as_evidence(reply_text(reply), max_bytes=self._max_bytes)
        if reply.is_error:
            return call.result(ToolOutcome.ERROR, f"{_label(call)} reported an error.", evidence)
        if not evidence.text.strip():
            return call.result(ToolOutcome.NO_DATA, f"{_label(call)} returned nothing.", evidence)
        cut = " (cut to the first part)" if evidence.truncated else ""
        return call.result(ToolOutcome.OK, f"{_label(call)} answered{cut}.", evidence)

    async def _ensure_running(self, entry: _Server) -> bool:
        async with entry.lock:
            if entry.connection.alive:
                return True
            if entry.failed_at is not None and time.monotonic() - entry.failed_at < RESTART_PAUSE_S:
                return False
            try:
                tools = await entry.connection.open()
            except ServerDownError as down:
                entry.down, entry.failed_at = str(down), time.monotonic()
                logger.warning(
                    "MCP server unavailable: %s", entry.down, extra={"server": entry.config.name}
                )
                return False
            entry.tools, entry.down, entry.failed_at = tools, None, None
            entry.specs = {spec.tool: spec for spec in allowed_specs(entry.config, tools)}
            entry.problems = start_problems(entry.config, tools)
            for problem in entry.problems:
                logger.warning(
                    "MCP configuration: %s", problem, extra={"server": entry.config.name}
                )
            return True


def _status(entry: _Server) -> ServerStatus:
    running = entry.connection.alive
    return ServerStatus(
        name=entry.config.name,
        transport=entry.config.transport,
        running=running,
        detail="running" if running else entry.down or "stopped",
        offered=tuple(tool.name for tool in entry.tools),
        allowed=tuple(entry.specs),
        problems=tuple(entry.problems),
    )


def _label(call: _Call) -> str:
    return f"{call.server} {call.tool}"


def _first_line(message: str) -> str:
    lines = message.strip().splitlines()
    return redact_text(lines[0])[:200] if lines else "no reason given"
