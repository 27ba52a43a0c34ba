"""The one `message` listener: every human message is dispatched inside (bots never count).

Bolt runs only the first matching listener, so file shares, thread replies and mentions all come
through here; the intake service decides between opening a case, a turn, or nothing.
"""

from __future__ import annotations

from typing import Any

from slack_bolt.app.async_app import AsyncApp
from slack_bolt.context.async_context import AsyncBoltContext

from bot.listeners.parsing import parse_message
from bot.services import Services
from bot.slack.ids import EventType


def register(app: AsyncApp, services: Services) -> None:
    """Listen to `message` events (message.channels, message.groups)."""

    @app.event(EventType.MESSAGE.value)
    async def on_message(body: dict[str, Any], context: AsyncBoltContext) -> None:
        incoming = parse_message(body, bot_user_id=context.bot_user_id)
        if incoming is not None:
            await services.intake.message(
                thread=incoming.thread,
                message=incoming.as_thread_message(),
                reply=incoming.is_reply,
                mentions_bot=incoming.mentions_bot,
                dedup_key=incoming.event_id,
            )
