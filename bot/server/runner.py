"""`fm run`: Socket Mode when SLACK_APP_TOKEN is set (and not `--http`), HTTP otherwise.

SIGINT/SIGTERM stop taking new work, then running turns get a grace period to finish; whatever is
cut short is resumed by the next start.
"""

from __future__ import annotations

import asyncio
import logging
import signal
import sys
from dataclasses import dataclass

from aiohttp import web

from bot.observability.metrics import Backlog, BacklogProbe
from bot.observability.tracing import configure_tracing, shutdown_tracing
from bot.server.acks import TimedSocketModeHandler
from bot.server.http_app import build_metrics_app, build_web_app
from bot.settings import Settings
from bot.wiring.errors import StartupError
from bot.wiring.runtime import Runtime, build_runtime
from domain.base import utc_now

logger = logging.getLogger(__name__)

GRACE_S = 20.0
HOST = "0.0.0.0"  # noqa: S104 - a bot in a container listens on every interface


@dataclass
class Server:
    """What receives Slack's requests for a runtime."""

    runner: web.AppRunner
    port: int
    socket: TimedSocketModeHandler | None = None
    metrics: web.AppRunner | None = None
    """The runner of /metrics on FM_METRICS_PORT, when it is set."""

    async def close(self) -> None:
        """Stop receiving (first the websocket, then HTTP)."""
        if self.socket is not None:
            await self.socket.close_async()  # type: ignore[no-untyped-call]
        await self.runner.cleanup()
        if self.metrics is not None:
            await self.metrics.cleanup()


async def start_server(runtime: Runtime, *, http: bool, port: int, host: str = HOST) -> Server:
    """Connect Socket Mode or serve `POST /slack/events`; alerts and the checks either way."""
    settings = runtime.settings
    app = runtime.app
    if app is None:
        raise StartupError("the Slack app was not built (console runtime?)")
    socket = None
    if settings.slack_app_token is not None and not http:
        # Built here, inside the running loop, as slack_sdk's aiohttp client requires.
        socket = TimedSocketModeHandler(app, app_token=settings.slack_app_token.get_secret_value())
        await socket.connect_async()  # type: ignore[no-untyped-call]
    elif settings.slack_signing_secret is None:
        raise StartupError(
            "HTTP mode needs SLACK_SIGNING_SECRET to verify Slack's requests "
            "(or set SLACK_APP_TOKEN for Socket Mode)."
        )
    web_app = build_web_app(
        bolt=None if socket else app,
        database_ok=runtime.database_ok,
        connection=socket.client if socket else None,
        alerts=runtime.alert_endpoint.handle if runtime.alert_endpoint else None,
        readiness=runtime.readiness,
        backlog=inbox_backlog(runtime),
    )
    runner, bound = await _listen(web_app, host, port)
    metrics = None
    if settings.metrics_port is not None:
        metrics, _ = await _listen(
            build_metrics_app(inbox_backlog(runtime)), host, settings.metrics_port
        )
    mode = "Socket Mode" if socket else f"HTTP on port {bound}"
    logger.info("FaultMaven is running", extra={"mode": mode})
    return Server(runner, bound, socket, metrics)


async def _listen(web_app: web.Application, host: str, port: int) -> tuple[web.AppRunner, int]:
    """Serve ``web_app`` on ``port`` (0: any free port); its runner and the port it got."""
    runner = web.AppRunner(web_app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, host, port)
    await site.start()
    bound = runner.addresses[0][1] if runner.addresses else port
    return runner, int(bound)


def inbox_backlog(runtime: Runtime) -> BacklogProbe:
    """Reads the inbox's depth and oldest item's age for /metrics."""
    inbox = runtime.repositories.inbox

    async def backlog() -> Backlog:
        depth, oldest = await inbox.backlog()
        age = 0.0 if oldest is None else (utc_now() - oldest).total_seconds()
        return Backlog(depth=depth, oldest_age_s=max(0.0, age))

    return backlog


async def serve(settings: Settings, *, http: bool, port: int, stop: asyncio.Event) -> None:
    """Run the bot until ``stop`` is set, then shut down gracefully."""
    configure_tracing(endpoint=settings.otel_endpoint)
    runtime = await build_runtime(settings)
    try:
        await runtime.start()
        server = await start_server(runtime, http=http, port=port)
        runtime.start_warm_up()
        print(f"FaultMaven is running ({_mode(server)}). Press Ctrl+C to stop.", flush=True)
        await stop.wait()
        print("Stopping: finishing the turns in progress…", flush=True)
        await server.close()
    finally:
        await runtime.close(grace_s=GRACE_S)
        shutdown_tracing()


def run(settings: Settings, *, http: bool, port: int) -> int:
    """The `fm run` command (Slack); returns the exit code."""
    try:
        asyncio.run(_main(settings, http=http, port=port))
    except StartupError as error:
        print(f"fm run: {error}", file=sys.stderr)
        return 2
    return 0


async def _main(settings: Settings, *, http: bool, port: int) -> None:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    await serve(settings, http=http, port=port, stop=stop)


def _mode(server: Server) -> str:
    return "Socket Mode" if server.socket else f"HTTP on port {server.port}"
