"""Interactions the app does not know: acknowledged, never refused, and the person told privately.

A button from an older version (or a renamed action), a shortcut or a form that is no longer
ours, an options request: Bolt answers what no listener matches with 404, which Slack shows people
as an error. Bolt runs the first listener that matches, so these catch-alls are registered after
every other listener (`bot.listeners.registry.MODULES` ends with this module) and only see what
nothing else took. The private note is said before the acknowledgement goes out (the app processes
before it responds), so it gets a short budget and is given up, not retried, when Slack is slow.
"""

from __future__ import annotations

import asyncio
import logging
import re
from typing import Any

import aiohttp
from slack_bolt.app.async_app import AsyncApp
from slack_bolt.context.ack.async_ack import AsyncAck
from slack_sdk.errors import SlackApiError

from bot.services import Services
from bot.slack.render.commands import notice
from bot.slack.render.errors import (
    STALE_BUTTON,
    STALE_FORM_INPUT,
    STALE_SHORTCUT,
    stale_form_view,
)

logger = logging.getLogger(__name__)

ANY = re.compile("")
"""Matches every id (Bolt searches the pattern in the id)."""
NOTE_BUDGET_S = 1.0
"""How long the private note may hold the acknowledgement (Slack waits 3 s in all)."""

Json = dict[str, Any]


def register(app: AsyncApp, services: Services) -> None:
    """Catch every block action, shortcut, form and options request no other listener took."""

    @app.block_action(ANY)
    async def on_unknown_button(ack: AsyncAck, body: Json) -> None:
        await ack()
        _log(body, str((body.get("actions") or [{}])[0].get("action_id")))
        await _tell(services, body, STALE_BUTTON)

    @app.shortcut(ANY)
    async def on_unknown_shortcut(ack: AsyncAck, body: Json) -> None:
        await ack()
        _log(body, str(body.get("callback_id")))
        await _tell(services, body, STALE_SHORTCUT)  # a global shortcut has no channel: silence

    @app.view_submission(ANY)
    async def on_unknown_form(ack: AsyncAck, body: Json) -> None:
        view: Json = body.get("view") or {}
        _log(body, str(view.get("callback_id")))
        first_input = next(
            (b.get("block_id") for b in view.get("blocks", []) if b.get("type") == "input"), None
        )
        if first_input:  # the form stays open with what was typed, and says why it can't be sent
            await ack(response_action="errors", errors={first_input: STALE_FORM_INPUT})
        else:
            await ack(response_action="update", view=stale_form_view())

    @app.view_closed(ANY)
    async def on_unknown_form_closed(ack: AsyncAck, body: Json) -> None:
        await ack()
        _log(body, str((body.get("view") or {}).get("callback_id")))

    @app.block_suggestion(ANY)
    async def on_options(ack: AsyncAck, body: Json) -> None:
        await ack(options=[])  # no menu of ours loads its options from the app
        _log(body, str(body.get("action_id")))


def _log(body: Json, interaction_id: str) -> None:
    logger.info(
        "unknown interaction acknowledged",
        extra={"interaction": body.get("type"), "interaction_id": interaction_id},
    )


async def _tell(services: Services, body: Json, text: str) -> None:
    """A private note where the interaction happened (nothing when it was not in a channel)."""
    channel, user, thread_ts = _place(body)
    if not (channel and user):
        return
    try:
        async with asyncio.timeout(NOTE_BUDGET_S):
            await services.presenter.surface.whisper(
                channel=channel, user=user, thread_ts=thread_ts, message=notice(text)
            )
    except (SlackApiError, aiohttp.ClientError, TimeoutError):
        logger.warning("could not tell the person", extra={"interaction": body.get("type")})


def _place(body: Json) -> tuple[str | None, str | None, str | None]:
    """Channel, person and thread of a block action or shortcut payload."""
    container: Json = body.get("container") or {}
    message: Json = body.get("message") or {}
    channel = container.get("channel_id") or (body.get("channel") or {}).get("id")
    thread_ts = container.get("thread_ts") or message.get("thread_ts")
    return channel, (body.get("user") or {}).get("id"), thread_ts
