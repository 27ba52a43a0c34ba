"""The one error handler: friendly words for known errors, a reference for the rest.

People never see exception text; the reference links what they saw to the log entry.
"""

from __future__ import annotations

import logging
from typing import Any

from slack_bolt.app.async_app import AsyncApp
from slack_sdk.errors import SlackApiError

from bot.services import Services
from bot.slack.errors import is_expected, new_reference, user_message
from bot.slack.render.commands import notice

logger = logging.getLogger(__name__)


def register(app: AsyncApp, services: Services) -> None:
    """Install the global error handler."""

    @app.error
    async def on_error(error: Exception, body: dict[str, Any]) -> None:
        reference = new_reference()
        expected = is_expected(error)
        logger.log(
            logging.INFO if expected else logging.ERROR,
            "listener failed",
            exc_info=not expected,
            extra={"reference": reference, "type": body.get("type")},
        )
        if body.get("type") == "event_callback":
            return  # not acknowledged, so Slack delivers the event again: nothing to tell yet
        channel, user = _where(body)
        if not (channel and user):
            return
        try:
            await services.presenter.surface.whisper(
                channel=channel,
                user=user,
                message=notice(user_message(error, reference=reference)),
                response_url=body.get("response_url"),
            )
        except SlackApiError:
            logger.warning("could not tell the person", extra={"reference": reference})


def _where(body: dict[str, Any]) -> tuple[str | None, str | None]:
    """Channel and person of any payload (events, interactivity, commands)."""
    event = body.get("event") or {}
    user = body.get("user_id") or (body.get("user") or {}).get("id") or event.get("user")
    channel = (
        body.get("channel_id")
        or (body.get("channel") or {}).get("id")
        or (body.get("container") or {}).get("channel_id")
        or event.get("channel")
    )
    return channel, user
