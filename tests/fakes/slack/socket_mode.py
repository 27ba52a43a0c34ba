"""Fake Socket Mode: the websocket `apps.connections.open` hands out, speaking Slack's envelopes."""

from __future__ import annotations

import asyncio
import json
import secrets
import uuid
from collections.abc import Callable
from typing import Any

from aiohttp import WSCloseCode, WSMsgType, web

from tests.fakes.slack.payloads import SlackRequest

JsonDict = dict[str, Any]

# Slack asks for a response payload on slash commands and on these interactive payloads.
_ACCEPTS_RESPONSE = {"slash_commands", "view_submission", "block_suggestion"}


class FakeSocketMode:
    """The Socket Mode side of `FakeSlack` (reach it as `slack.socket_mode`)."""

    def __init__(self, app_id: str) -> None:
        self.app_id = app_id
        self.ws_base_url = ""  # set when the server starts
        self.connections_opened = 0
        self.sent: list[JsonDict] = []
        self.received: list[JsonDict] = []
        self.acks: dict[str, JsonDict] = {}
        self._tickets: set[str] = set()
        self._sockets: list[web.WebSocketResponse] = []
        self._changed = asyncio.Condition()

    @property
    def open_connections(self) -> int:
        return sum(1 for ws in self._sockets if not ws.closed)

    def issue_url(self) -> str:
        """A one-time websocket URL, as `apps.connections.open` returns."""
        ticket = secrets.token_hex(16)
        self._tickets.add(ticket)
        return f"{self.ws_base_url}/link/?ticket={ticket}&app_id={self.app_id}"

    async def handle(self, request: web.Request) -> web.StreamResponse:
        """The websocket endpoint: say hello, then collect acknowledgements."""
        ticket = request.query.get("ticket", "")
        if ticket not in self._tickets:
            raise web.HTTPUnauthorized(text="invalid ticket")
        self._tickets.discard(ticket)
        ws = web.WebSocketResponse(autoping=True)
        await ws.prepare(request)
        await ws.send_json(self._hello())
        await self._notify(lambda: self._register(ws))
        try:
            async for message in ws:
                if message.type == WSMsgType.TEXT:
                    await self._on_text(message.data)
        finally:
            await self._notify(lambda: None)
        return ws

    async def wait_connected(self, count: int = 1, timeout: float = 5) -> None:  # noqa: ASYNC109
        """Wait until `count` connections have been opened in total and one is open."""
        await self._wait(
            lambda: self.connections_opened >= count and self.open_connections > 0, timeout
        )

    async def send_envelope(
        self,
        type: str,  # Slack's field name
        payload: JsonDict,
        envelope_id: str | None = None,
        *,
        accepts_response_payload: bool | None = None,
        retry_attempt: int = 0,
        retry_reason: str = "",
        timeout: float = 5,  # noqa: ASYNC109 - waits for a connection first
    ) -> str:
        """Push one envelope to the newest open connection; returns its envelope id."""
        await self.wait_connected(timeout=timeout)
        envelope_id = envelope_id or str(uuid.uuid4())
        if accepts_response_payload is None:
            accepts_response_payload = (
                type in _ACCEPTS_RESPONSE or payload.get("type") in _ACCEPTS_RESPONSE
            )
        envelope: JsonDict = {
            "envelope_id": envelope_id,
            "payload": payload,
            "type": type,
            "accepts_response_payload": accepts_response_payload,
        }
        if type == "events_api":
            envelope.update(retry_attempt=retry_attempt, retry_reason=retry_reason)
        await self._newest().send_str(json.dumps(envelope))
        self.sent.append(envelope)
        return envelope_id

    async def send_request(
        self, request: SlackRequest, envelope_id: str | None = None, **kwargs: Any
    ) -> str:
        """Push a payload built by `payloads` in the envelope Slack would use for it."""
        return await self.send_envelope(
            request.envelope_type, request.payload, envelope_id, **kwargs
        )

    async def wait_for_ack(self, envelope_id: str, timeout: float = 5) -> JsonDict:  # noqa: ASYNC109
        """The acknowledgement's `payload` (`{}` when the ack carried none)."""
        await self._wait(lambda: envelope_id in self.acks, timeout)
        return self.acks[envelope_id]

    async def send_disconnect(self, reason: str = "refresh_requested") -> None:
        """Ask the client to reconnect, as Slack does before recycling a connection."""
        await self.wait_connected()
        message = {"type": "disconnect", "reason": reason, "debug_info": {"host": "applink-fake"}}
        await self._newest().send_str(json.dumps(message))

    async def drop_connections(self, code: int = WSCloseCode.GOING_AWAY) -> None:
        """Close every open websocket from the server side."""
        for ws in list(self._sockets):
            await ws.close(code=code, message=b"server going away")

    async def close(self) -> None:
        await self.drop_connections()

    # ------------------------------------------------------------------ internals
    def _hello(self) -> JsonDict:
        return {
            "type": "hello",
            "num_connections": self.open_connections + 1,
            "debug_info": {
                "host": "applink-fake",
                "build_number": 1,
                "approximate_connection_time": 18060,
            },
            "connection_info": {"app_id": self.app_id},
        }

    def _register(self, ws: web.WebSocketResponse) -> None:
        self._sockets = [s for s in self._sockets if not s.closed] + [ws]
        self.connections_opened += 1

    def _newest(self) -> web.WebSocketResponse:
        return [ws for ws in self._sockets if not ws.closed][-1]

    async def _on_text(self, data: str) -> None:
        message = json.loads(data)
        self.received.append(message)
        if isinstance(message, dict) and message.get("envelope_id"):
            await self._notify(
                lambda: self.acks.__setitem__(message["envelope_id"], message.get("payload") or {})
            )

    async def _notify(self, change: Callable[[], None]) -> None:
        async with self._changed:
            change()
            self._changed.notify_all()

    async def _wait(self, ready: Callable[[], bool], timeout: float) -> None:  # noqa: ASYNC109
        async with self._changed:
            try:
                await asyncio.wait_for(self._changed.wait_for(ready), timeout)
            except TimeoutError:
                raise AssertionError(
                    f"Socket Mode: not ready within {timeout}s (opened={self.connections_opened}, "
                    f"open={self.open_connections}, acks={list(self.acks)})"
                ) from None
