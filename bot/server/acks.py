"""How long Slack waited for its acknowledgement, in HTTP mode and in Socket Mode alike.

The app runs with `process_before_response`: the acknowledgement goes out once the listener has
recorded the work, so the time from receiving a request to answering it is what Slack sees
(it allows three seconds). Requests are labelled by kind from a fixed list, never by content.
"""

from __future__ import annotations

from typing import Any

from slack_bolt.adapter.socket_mode.async_handler import AsyncSocketModeHandler
from slack_sdk.socket_mode.aiohttp import SocketModeClient
from slack_sdk.socket_mode.request import SocketModeRequest

from bot.observability.metrics import OTHER, Stopwatch, observe_ack
from bot.slack.ids import EventType

PAYLOAD_TYPES = frozenset(
    {
        "block_actions",
        "block_suggestion",
        "message_action",
        "shortcut",
        "url_verification",
        "view_closed",
        "view_submission",
    }
)
EVENT_TYPES = frozenset(event.value for event in EventType) | {"app_mention"}


def request_kind(body: dict[str, Any]) -> str:
    """A slash command, an event's type, or an interaction's payload type; else "other"."""
    if "command" in body:
        return "slash_command"
    event = body.get("event")
    if isinstance(event, dict):
        kind = event.get("type")
        return f"event:{kind}" if kind in EVENT_TYPES else "event:other"
    kind = body.get("type")
    return str(kind) if kind in PAYLOAD_TYPES else OTHER


class TimedSocketModeHandler(AsyncSocketModeHandler):
    """Bolt's Socket Mode handler, timing each request from its arrival to its acknowledgement."""

    async def handle(self, client: SocketModeClient, req: SocketModeRequest) -> None:  # type: ignore[override]
        """Dispatch and acknowledge, as Bolt does; the time it took is observed."""
        watch = Stopwatch()
        await super().handle(client, req)
        observe_ack(request_kind(req.payload or {}), watch.seconds())
