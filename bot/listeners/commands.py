"""`/fm`: help answers at once, `kb add` opens its modal (trigger ids expire), the rest queues."""

from __future__ import annotations

from typing import Any

from slack_bolt.app.async_app import AsyncApp
from slack_bolt.context.ack.async_ack import AsyncAck
from slack_sdk.web.async_client import AsyncWebClient

from bot.listeners.parsing import parse_command
from bot.services import Services
from bot.services.commands import parse_command as parse_text
from bot.slack.ids import Command, KbAddMetadata, Subcommand
from bot.slack.render.commands import help_message
from bot.slack.render.views import kb_add_modal


def register(app: AsyncApp, services: Services) -> None:
    """Listen to `/fm`."""

    @app.command(Command.FM.value)
    async def on_fm(ack: AsyncAck, command: dict[str, Any], client: AsyncWebClient) -> None:
        work, dedup_key = parse_command(command)
        parsed = parse_text(work.text)
        if parsed.subcommand is Subcommand.HELP:
            await ack(**help_message().payload())
        elif parsed.subcommand is Subcommand.KB and parsed.args[:1] == ["add"]:
            await ack()
            modal = kb_add_modal(KbAddMetadata(channel_id=work.channel_id))
            await client.views_open(trigger_id=command["trigger_id"], view=modal)
        else:
            await services.intake.command(work, dedup_key=dedup_key)
            await ack()
