"""The HTTP side: `POST /slack/events` (signed, to Bolt), the alert endpoint, `GET /healthz`,
`GET /readyz` and `GET /metrics` (Prometheus).

In Socket Mode Slack needs no HTTP endpoint, but the alert endpoint and the checks are still
served; the health check reports the websocket truly connected (asked with `await
is_connected()`, not assumed from having connected once). Healthy is answered from the first
second; ready (healthy, and the warm-up done: see bot.wiring.readiness) comes seconds later.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Protocol

from aiohttp import web
from slack_bolt.adapter.aiohttp import to_aiohttp_response, to_bolt_request
from slack_bolt.app.async_app import AsyncApp

from bot.alerts.endpoint import ALERTS_PATH
from bot.observability.metrics import CONTENT_TYPE, BacklogProbe, Stopwatch, observe_ack, render
from bot.server.acks import request_kind
from bot.wiring.readiness import Readiness

EVENTS_PATH = "/slack/events"
HEALTH_PATH = "/healthz"
READY_PATH = "/readyz"
METRICS_PATH = "/metrics"

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
    readiness: Readiness | None = None,
    backlog: BacklogProbe | None = None,
) -> web.Application:
    """Slack's route in HTTP mode (``bolt`` given), the alert endpoint, both checks, /metrics."""
    app = build_metrics_app(backlog)
    if bolt is not None:
        app.router.add_post(EVENTS_PATH, _events(bolt))
    if alerts is not None:
        app.router.add_post(ALERTS_PATH, alerts)
    app.router.add_get(HEALTH_PATH, _health(database_ok, connection))
    app.router.add_get(READY_PATH, _ready(database_ok, connection, readiness or Readiness()))
    return app


def build_metrics_app(backlog: BacklogProbe | None = None) -> web.Application:
    """An app serving `GET /metrics`; with ``backlog``, the inbox is read at each scrape."""
    app = web.Application()
    app.router.add_get(METRICS_PATH, _metrics(backlog))
    return app


def _metrics(backlog: BacklogProbe | None) -> Handler:
    async def metrics(request: web.Request) -> web.Response:
        body = await render(backlog)
        return web.Response(body=body, headers={"Content-Type": CONTENT_TYPE})

    return metrics


def _events(bolt: AsyncApp) -> Handler:
    async def events(request: web.Request) -> web.Response:
        watch = Stopwatch()
        # Bolt verifies the signature and the timestamp's age before anything else runs.
        incoming = await to_bolt_request(request)
        response = await bolt.async_dispatch(incoming)
        observe_ack(request_kind(incoming.body), watch.seconds())
        return await to_aiohttp_response(response)

    return events


def _health(database_ok: DatabaseCheck, connection: Connection | None) -> Handler:
    async def health(request: web.Request) -> web.Response:
        report = await _checked(database_ok, connection)
        return web.json_response(report, status=200 if report["ok"] else 503)

    return health


def _ready(
    database_ok: DatabaseCheck, connection: Connection | None, readiness: Readiness
) -> Handler:
    async def ready(request: web.Request) -> web.Response:
        report = await _checked(database_ok, connection)
        report["warm_up"] = readiness.report()
        report["ok"] = bool(report["ok"]) and readiness.ready
        return web.json_response(report, status=200 if report["ok"] else 503)

    return ready


async def _checked(database_ok: DatabaseCheck, connection: Connection | None) -> dict[str, object]:
    """The database (and the Socket Mode connection): what healthy means."""
    database = await database_ok()
    report: dict[str, object] = {"database": "ok" if database else "unavailable"}
    healthy = database
    if connection is not None:
        connected = await connection.is_connected()
        report["socket_mode"] = "connected" if connected else "disconnected"
        healthy = healthy and connected
    report["ok"] = healthy
    return report
