"""Message shortcuts: Investigate opens a case on the message; Score investigation grades it;
Case status shows the thread's case to the person who asked."""

from __future__ import annotations

from typing import Any

from slack_bolt.app.async_app import AsyncApp
from slack_bolt.context.ack.async_ack import AsyncAck

from bot.listeners.parsing import parse_investigate, parse_score_shortcut, parse_status_shortcut
from bot.services import Services
from bot.slack.ids import CallbackId


def register(app: AsyncApp, services: Services) -> None:
    """Listen to the three message shortcuts of manifest.yml."""

    @app.shortcut(CallbackId.INVESTIGATE.value)
    async def on_investigate(ack: AsyncAck, body: dict[str, Any]) -> None:
        work, dedup_key = parse_investigate(body)
        await services.intake.open_case(work, dedup_key=dedup_key)
        await ack()

    @app.shortcut(CallbackId.SCORE_INVESTIGATION.value)
    async def on_score(ack: AsyncAck, body: dict[str, Any]) -> None:
        work, dedup_key = parse_score_shortcut(body)
        await services.intake.score_request(work, dedup_key=dedup_key)
        await ack()

    @app.shortcut(CallbackId.THREAD_STATUS.value)
    async def on_status(ack: AsyncAck, body: dict[str, Any]) -> None:
        work, dedup_key = parse_status_shortcut(body)
        await services.intake.command(work, dedup_key=dedup_key)
        await ack()
