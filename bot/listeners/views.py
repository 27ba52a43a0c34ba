"""Modal submissions: the `kb add` runbook form and the problem statement correction (errors are
shown in the form itself)."""

from __future__ import annotations

from typing import Any

from slack_bolt.app.async_app import AsyncApp
from slack_bolt.context.ack.async_ack import AsyncAck

from bot.listeners.parsing import parse_correction, parse_kb_add
from bot.services import Services
from bot.slack.ids import CallbackId


def register(app: AsyncApp, services: Services) -> None:
    """Listen to the modals."""

    @app.view(CallbackId.KB_ADD.value)
    async def on_kb_add(ack: AsyncAck, body: dict[str, Any]) -> None:
        work, dedup_key, errors = parse_kb_add(body)
        if errors:
            await ack(response_action="errors", errors=errors)
            return
        await services.intake.kb_add(work, dedup_key=dedup_key)
        await ack()

    @app.view(CallbackId.CORRECT_STATEMENT.value)
    async def on_correction(ack: AsyncAck, body: dict[str, Any]) -> None:
        work, dedup_key, errors = parse_correction(body)
        if errors:
            await ack(response_action="errors", errors=errors)
            return
        await services.intake.click(work, dedup_key=dedup_key)
        await ack()
