"""One MCP server: its child process or HTTP endpoint, the session over it, and its tools.

A session lives in a keeper task that enters the transport and the session and waits, so both are
left in the task that entered them (the SDK's task groups require it); calls use the session from
any task. A stdio server's standard error goes to a private temporary file, read back only to say
why it did not start (redacted), never into the bot's log as it is.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import tempfile
from collections.abc import AsyncIterator, Mapping
from typing import IO

import httpx2
from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.client._transport import TransportStreams
from mcp.client.streamable_http import streamable_http_client
from mcp.types import CallToolResult, Implementation, PaginatedRequestParams, Tool

from domain.redaction import redact_text
from domain.tools import ServerConfig, ToolInfo

logger = logging.getLogger(__name__)

CLIENT = Implementation(name="faultmaven-slack", version="0.1.0")
START_TIMEOUT_S = 60.0
"""A server fetched by `npx` or `uvx` on its first start may take this long."""
MAX_TOOL_PAGES = 20
LAST_WORDS_CHARS = 200


class ServerDownError(Exception):
    """The server is not available; the message is one sentence fit to show."""


class Connection:
    """A started server and its session; `open` starts (or restarts) it, `close` stops it."""

    def __init__(self, server: ServerConfig, *, start_timeout_s: float = START_TIMEOUT_S) -> None:
        self.server = server
        self._start_timeout_s = start_timeout_s
        self._session: ClientSession | None = None
        self._keeper: asyncio.Task[None] | None = None
        self._stop = asyncio.Event()
        self._errlog: IO[str] | None = None
        self._broken = False

    @property
    def alive(self) -> bool:
        """Whether calls can be sent now."""
        keeper = self._keeper
        return (
            self._session is not None
            and keeper is not None
            and not keeper.done()
            and not self._broken
            and not _ended(self._session)
        )

    def mark_broken(self) -> None:
        """The server stopped answering (its process died): the next `open` starts it again."""
        self._broken = True

    async def open(self) -> list[ToolInfo]:
        """Start the server (stopping any previous process) and list its tools."""
        await self.close()
        self._broken = False
        self._stop = asyncio.Event()
        ready: asyncio.Future[ClientSession] = asyncio.get_running_loop().create_future()
        self._keeper = asyncio.create_task(
            self._keep(ready, self._stop), name=f"mcp-{self.server.name}"
        )
        try:
            async with asyncio.timeout(self._start_timeout_s):
                session = await asyncio.shield(ready)
                tools = await _list_tools(session)
        except Exception as exc:
            sentence = self._why_down(exc)
            await self.close()
            if ready.done() and not ready.cancelled():
                ready.exception()  # seen: asyncio would otherwise log it as never retrieved
            raise ServerDownError(sentence) from None
        self._session = session
        return tools

    async def call(
        self, tool: str, arguments: Mapping[str, object], timeout_s: float
    ) -> CallToolResult:
        """Call one tool; raises TimeoutError, the SDK's errors, or ServerDownError."""
        session = self._session
        if session is None or not self.alive:
            raise ServerDownError(f"server {self.server.name!r} is not running")
        async with asyncio.timeout(timeout_s):
            return await session.call_tool(tool, dict(arguments))

    async def close(self) -> None:
        """Stop the session and the server's process; safe to call at any time."""
        self._session = None
        keeper, self._keeper = self._keeper, None
        if keeper is not None and not keeper.done():
            self._stop.set()
            try:
                await asyncio.wait_for(asyncio.shield(keeper), self._start_timeout_s)
            except Exception:  # a keeper that will not stop is cancelled
                keeper.cancel()
                with contextlib.suppress(BaseException):
                    await keeper
        if self._errlog is not None:
            self._errlog.close()
            self._errlog = None

    async def _keep(self, ready: asyncio.Future[ClientSession], stop: asyncio.Event) -> None:
        try:
            async with (
                self._transport() as (read, write),
                ClientSession(read, write, client_info=CLIENT) as session,
            ):
                await session.initialize()
                ready.set_result(session)
                await stop.wait()
        except Exception as exc:  # the SDK raises many types, in groups; the caller is told
            if not ready.done():
                ready.set_exception(exc)
            else:
                logger.warning(
                    "MCP server stopped", extra={"server": self.server.name, "error": _leaf(exc)}
                )
        finally:
            if not ready.done():
                ready.set_exception(ServerDownError("stopped while starting"))

    @contextlib.asynccontextmanager
    async def _transport(self) -> AsyncIterator[TransportStreams]:
        if self.server.command is not None:
            # Outlives the transport: read after a failed start, closed by `close`.
            self._errlog = tempfile.TemporaryFile(  # noqa: SIM115
                mode="w+", encoding="utf-8", errors="replace"
            )
            parameters = StdioServerParameters(
                command=self.server.command,
                args=list(self.server.args),
                env={name: value.get_secret_value() for name, value in self.server.env.items()},
                cwd=self.server.cwd,
            )
            async with stdio_client(parameters, errlog=self._errlog) as streams:
                yield streams
            return
        headers = {name: value.get_secret_value() for name, value in self.server.headers.items()}
        timeout = httpx2.Timeout(self._start_timeout_s, read=None)
        async with (
            httpx2.AsyncClient(headers=headers, timeout=timeout) as client,
            streamable_http_client(str(self.server.url), http_client=client) as streams,
        ):
            yield streams

    def _why_down(self, exc: BaseException) -> str:
        name = self.server.name
        if isinstance(exc, TimeoutError):
            return f"server {name!r} did not answer within {self._start_timeout_s:g} s of starting"
        if isinstance(exc, FileNotFoundError):
            return f"server {name!r} cannot start: {self.server.command!r} was not found"
        words = self._last_words()
        if self.server.command is not None:
            said = f" (it said: {words})" if words else ""
            return f"server {name!r} stopped while starting{said}"
        return f"server {name!r} cannot be reached at {self.server.url} ({_leaf(exc)})"

    def _last_words(self) -> str:
        if self._errlog is None:
            return ""
        with contextlib.suppress(OSError, ValueError):
            self._errlog.flush()
            self._errlog.seek(0)
            lines = [
                line.strip() for line in self._errlog.read()[-4_000:].splitlines() if line.strip()
            ]
            return redact_text(lines[-1])[:LAST_WORDS_CHARS] if lines else ""
        return ""


async def _list_tools(session: ClientSession) -> list[ToolInfo]:
    tools: list[Tool] = []
    cursor: str | None = None
    for _ in range(MAX_TOOL_PAGES):
        params = PaginatedRequestParams(cursor=cursor) if cursor else None
        page = await session.list_tools(params=params)
        tools += page.tools
        cursor = page.next_cursor
        if not cursor:
            break
    return [_tool_info(tool) for tool in tools]


def _ended(session: ClientSession) -> bool:
    """Whether the session's connection has ended, say because the server exited between calls."""
    # The SDK has no public flag for it; reading its dispatcher's lets a server that died while
    # idle be started again before a call instead of failing that call.
    dispatcher = getattr(session, "_dispatcher", None)
    return bool(getattr(dispatcher, "_closed", False))


def _tool_info(tool: Tool) -> ToolInfo:
    hints = tool.annotations
    return ToolInfo(
        name=tool.name,
        description=tool.description or "",
        input_schema=dict(tool.input_schema),
        read_only_hint=None if hints is None else hints.read_only_hint,
        destructive_hint=None if hints is None else hints.destructive_hint,
    )


def _leaf(exc: BaseException) -> str:
    """The innermost error's type and first line, for one sentence (redacted)."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    first = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    return redact_text(f"{type(exc).__name__}: {first}" if first else type(exc).__name__)[
        :LAST_WORDS_CHARS
    ]
