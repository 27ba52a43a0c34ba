"""The Slack side of the wiring: the Web API client, the Bolt app, the surface and responders."""

from __future__ import annotations

import logging
from typing import Any

import aiohttp
from slack_bolt.app.async_app import AsyncApp
from slack_bolt.request.async_request import AsyncBoltRequest
from slack_bolt.response import BoltResponse
from slack_sdk.http_retry.builtin_async_handlers import (
    AsyncConnectionErrorRetryHandler,
    AsyncRateLimitErrorRetryHandler,
)
from slack_sdk.web.async_client import AsyncWebClient

from bot.adapters.responders import SlackResponders
from bot.listeners.registry import register_all
from bot.services import Services
from bot.services.ports import CaseParticipants, Responders
from bot.settings import Settings
from bot.slack.observed import ObservedWebClient
from bot.slack.surface import SlackSurface
from bot.thread.surface import ChatSurface
from bot.wiring.errors import StartupError
from bot.worker.worker import Arrivals

SLACK_TIMEOUT_S = 30
"""Per Web API call (slack_sdk's own default)."""


def build_slack_client(settings: Settings, *, pooled: bool = False) -> AsyncWebClient:
    """The Web API client: FM_SLACK_API_URL, retries on connection errors and rate limits only.

    ``pooled`` (inside the event loop only) gives it one HTTP session whose connections are
    reused by every call; without it slack_sdk opens and closes a session per call.
    """
    if settings.slack_bot_token is None:
        raise StartupError("SLACK_BOT_TOKEN is not set; set it, or try `fm run --console`.")
    session = (
        aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=SLACK_TIMEOUT_S))
        if pooled
        else None
    )
    return ObservedWebClient(
        token=settings.slack_bot_token.get_secret_value(),
        base_url=settings.slack_api_url,
        session=session,
        timeout=SLACK_TIMEOUT_S,
        # Passing a list replaces the default one, so both handlers are named; 5xx is not
        # retried, since a retried post can appear twice.
        retry_handlers=[
            AsyncConnectionErrorRetryHandler(max_retry_count=2),
            AsyncRateLimitErrorRetryHandler(max_retry_count=3),
        ],
    )


class _UnusedTokenNotice(logging.Filter):
    """Bolt reads SLACK_BOT_TOKEN itself even when given a client, then warns at every start
    that the token is unused; the client, built from the same token, is what we meant."""

    def filter(self, record: logging.LogRecord) -> bool:
        return "`token` will be unused" not in record.getMessage()


def build_app(
    settings: Settings, client: AsyncWebClient, services: Services, arrivals: Arrivals
) -> AsyncApp:
    """The Bolt app with every listener registered; requests are tracked until acknowledged."""
    secret = settings.slack_signing_secret
    bolt_logger = logging.getLogger("slack_bolt.AsyncApp")
    if not any(isinstance(f, _UnusedTokenNotice) for f in bolt_logger.filters):
        bolt_logger.addFilter(_UnusedTokenNotice())
    app = _TrackedApp(
        arrivals,
        name="faultmaven",
        client=client,
        signing_secret=secret.get_secret_value() if secret else "",
        # Acknowledge only once the listener has recorded the work in the inbox: if recording
        # fails, Slack gets a 500 and delivers the event again instead of it being lost.
        process_before_response=True,
    )
    register_all(app, services)
    return app


class _TrackedApp(AsyncApp):
    """Bolt's app, telling the worker which requests are still owed an acknowledgement.

    Every request passes through `async_dispatch`, over HTTP and over Socket Mode alike (a Bolt
    middleware would not do: its ``next`` returns before the listener has run).
    """

    def __init__(self, arrivals: Arrivals, **options: Any) -> None:
        super().__init__(**options)
        self._arrivals = arrivals

    async def async_dispatch(self, req: AsyncBoltRequest) -> BoltResponse:
        with self._arrivals.receiving():
            return await super().async_dispatch(req)


def slack_surface(settings: Settings, client: AsyncWebClient | None) -> ChatSurface:
    assert client is not None
    assert settings.slack_bot_token is not None
    return SlackSurface(
        client,
        bot_token=settings.slack_bot_token.get_secret_value(),
        api_url=settings.slack_api_url,
    )


def responders(
    client: AsyncWebClient | None, *, confirmers: str | None, alert_group: str | None
) -> Responders:
    """Who may decide: looked up in Slack; without Slack (the console), the case's participants."""
    if client is None:
        return CaseParticipants()
    return SlackResponders(client, confirmers=confirmers, alert_group=alert_group)
