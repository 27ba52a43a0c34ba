"""Button clicks: recorded in the case's order (the action id + action ts deduplicates them)."""

from __future__ import annotations

import re
from typing import Any

from slack_bolt.app.async_app import AsyncApp
from slack_bolt.context.ack.async_ack import AsyncAck

from bot.services import Services
from bot.slack.events import parse_click
from bot.slack.ids import ActionId

OUR_ACTIONS = re.compile(rf"^({'|'.join(re.escape(a.value) for a in ActionId)})(:.*)?$")


def register(app: AsyncApp, services: Services) -> None:
    """Listen to every ActionId (with or without its suffix)."""

    @app.action(OUR_ACTIONS)
    async def on_click(ack: AsyncAck, body: dict[str, Any]) -> None:
        work, dedup_key = parse_click(body)
        await services.intake.click(work, dedup_key=dedup_key)
        await ack()
