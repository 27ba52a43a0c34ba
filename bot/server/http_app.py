"""The HTTP side: `POST /slack/events` (signed, to Bolt), the alert endpoint and `GET /healthz`.

In Socket Mode Slack needs no HTTP endpoint, but the alert endpoint and the health check are still
served; the health check reports the websocket truly connected (asked with `await
is_connected()`, not assumed from having connected once).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Protocol

from aiohttp import web
from slack_bolt.adapter.aiohttp import to_aiohttp_response, to_bolt_request
from slack_bolt.app.async_app import AsyncApp

from bot.alerts.endpoint import ALERTS_PATH

EVENTS_PATH = "/slack/events"
HEALTH_PATH = "/healthz"

DatabaseCheck = Callable[[], Awaitable[bool]]
Handler = Callable[[web.Request], Awaitable[web.Response]]


class Connection(Protocol):
    """A Socket Mode connection (slack_sdk's SocketModeClient)."""

    async def is_connected(self) -> bool:
        """Whether the websocket is open and alive."""
        ...


def build_web_app(
    *,
    bolt: AsyncApp | None,
    database_ok: DatabaseCheck,
    connection: Connection | None = None,
    alerts: Handler | None = None,
) -> web.Application:
    """Slack's route in HTTP mode (``bolt`` given), the alert endpoint and the health check."""
    app = web.Application()
    if bolt is not None:
        app.router.add_post(EVENTS_PATH, _events(bolt))
    if alerts is not None:
        app.router.add_post(ALERTS_PATH, alerts)
    app.router.add_get(HEALTH_PATH, _health(database_ok, connection))
    return app


def _events(bolt: AsyncApp) -> Callable[[web.Request], Awaitable[web.Response]]:
    async def events(request: web.Request) -> web.Response:
        # Bolt verifies the signature and the timestamp's age before anything else runs.
        response = await bolt.async_dispatch(await to_bolt_request(request))
        return await to_aiohttp_response(response)

    return events


def _health(
    database_ok: DatabaseCheck, connection: Connection | None
) -> Callable[[web.Request], Awaitable[web.Response]]:
    async def health(request: web.Request) -> web.Response:
        database = await database_ok()
        report: dict[str, object] = {"database": "ok" if database else "unavailable"}
        healthy = database
        if connection is not None:
            connected = await connection.is_connected()
            report["socket_mode"] = "connected" if connected else "disconnected"
            healthy = healthy and connected
        report["ok"] = healthy
        return web.json_response(report, status=200 if healthy else 503)

    return health
