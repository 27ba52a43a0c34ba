"""Socket Mode: real slack_sdk and Bolt clients connect, receive envelopes, ack, and reconnect."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import pytest
from slack_bolt.adapter.socket_mode.async_handler import AsyncSocketModeHandler
from slack_bolt.app.async_app import AsyncApp
from slack_bolt.context.say.async_say import AsyncSay
from slack_sdk.errors import SlackApiError
from slack_sdk.socket_mode.aiohttp import SocketModeClient
from slack_sdk.socket_mode.async_client import AsyncBaseSocketModeClient
from slack_sdk.socket_mode.request import SocketModeRequest
from slack_sdk.socket_mode.response import SocketModeResponse
from slack_sdk.web.async_client import AsyncWebClient

from tests.fakes.slack.server import FakeSlack
from tests.unit.fakes.conftest import APP_TOKEN, BOT_TOKEN


@pytest.fixture
async def socket_client(
    slack: FakeSlack,
) -> AsyncIterator[tuple[SocketModeClient, list[SocketModeRequest]]]:
    """A real aiohttp SocketModeClient that acks everything (with a payload for commands)."""
    received: list[SocketModeRequest] = []
    client = SocketModeClient(
        app_token=APP_TOKEN, web_client=AsyncWebClient(base_url=slack.api_url)
    )

    async def ack(sm_client: AsyncBaseSocketModeClient, request: SocketModeRequest) -> None:
        received.append(request)
        payload = {"text": "Working on it"} if request.type == "slash_commands" else None
        await sm_client.send_socket_mode_response(
            SocketModeResponse(request.envelope_id, payload=payload)
        )

    client.socket_mode_request_listeners.append(ack)
    try:
        yield client, received
    finally:
        await client.close()


async def test_connections_open_needs_the_app_token(slack: FakeSlack) -> None:
    with_app_token = await AsyncWebClient(base_url=slack.api_url).apps_connections_open(
        app_token=APP_TOKEN
    )
    with pytest.raises(SlackApiError) as refused:
        await AsyncWebClient(base_url=slack.api_url).apps_connections_open(app_token=BOT_TOKEN)

    assert with_app_token["url"].startswith(
        f"ws://127.0.0.1:{slack.base_url.rsplit(':', 1)[1]}/link/"
    )
    assert refused.value.response["error"] == "not_allowed_token_type"


async def test_a_real_client_connects_gets_hello_and_acks_an_events_api_envelope(
    slack: FakeSlack, socket_client: tuple[SocketModeClient, list[SocketModeRequest]]
) -> None:
    client, received = socket_client
    hellos: list[str] = []

    async def on_message(message: Any) -> None:
        hellos.append(message.data)

    client.on_message_listeners.append(on_message)
    await client.connect()
    await slack.socket_mode.wait_connected()
    mention = slack.payloads.app_mention("<@U0FMBOT> db-1 is down")

    envelope_id = await slack.socket_mode.send_request(mention)
    ack = await slack.socket_mode.wait_for_ack(envelope_id)

    assert ack == {}
    assert await client.is_connected()
    assert '"type": "hello"' in hellos[0]
    assert received[0].type == "events_api"
    assert received[0].payload == mention.payload
    assert received[0].payload["event"]["text"] == "<@U0FMBOT> db-1 is down"


async def test_acks_can_carry_a_response_payload(
    slack: FakeSlack, socket_client: tuple[SocketModeClient, list[SocketModeRequest]]
) -> None:
    client, _ = socket_client
    await client.connect()

    envelope_id = await slack.socket_mode.send_request(slack.payloads.slash_command("help"))

    assert await slack.socket_mode.wait_for_ack(envelope_id) == {"text": "Working on it"}
    assert slack.socket_mode.sent[0]["accepts_response_payload"] is True


async def test_a_disconnect_message_makes_the_client_reconnect(
    slack: FakeSlack, socket_client: tuple[SocketModeClient, list[SocketModeRequest]]
) -> None:
    client, received = socket_client
    await client.connect()
    await slack.socket_mode.wait_connected()

    await slack.socket_mode.send_disconnect("refresh_requested")
    await slack.socket_mode.wait_connected(count=2)
    envelope_id = await slack.socket_mode.send_envelope(
        "events_api", slack.payloads.message("after").payload
    )

    assert await slack.socket_mode.wait_for_ack(envelope_id) == {}
    assert len(slack.calls_to("apps.connections.open")) == 2
    assert received[-1].payload["event"]["text"] == "after"


async def test_a_server_side_close_makes_the_client_reconnect(
    slack: FakeSlack, socket_client: tuple[SocketModeClient, list[SocketModeRequest]]
) -> None:
    client, _ = socket_client
    await client.connect()
    await slack.socket_mode.wait_connected()

    await slack.socket_mode.drop_connections()
    await slack.socket_mode.wait_connected(count=2)
    envelope_id = await slack.socket_mode.send_envelope(
        "events_api", slack.payloads.message("back").payload
    )

    assert await slack.socket_mode.wait_for_ack(envelope_id) == {}


async def test_bolt_socket_mode_handler_acks_and_replies_in_the_thread(slack: FakeSlack) -> None:
    app = AsyncApp(client=AsyncWebClient(base_url=slack.api_url, token=BOT_TOKEN))

    @app.event("app_mention")
    async def answer(event: dict[str, Any], say: AsyncSay) -> None:
        await say(text="Looking at this…", thread_ts=event["ts"])

    handler = AsyncSocketModeHandler(app, APP_TOKEN)
    try:
        await handler.connect_async()
        mention = slack.payloads.app_mention("<@U0FMBOT> checkout 500s", channel="C9")
        envelope_id = await slack.socket_mode.send_request(mention)

        await slack.socket_mode.wait_for_ack(envelope_id)
        posts = await slack.wait_for("chat.postMessage")
    finally:
        await handler.close_async()

    assert posts[0]["thread_ts"] == mention.payload["event"]["ts"]
    assert (
        slack.messages("C9", thread_ts=mention.payload["event"]["ts"])[0]["text"]
        == "Looking at this…"
    )
    assert slack.invalid_payloads == []


async def test_waiting_for_an_ack_that_never_comes_fails_clearly(slack: FakeSlack) -> None:
    with pytest.raises(AssertionError, match="Socket Mode: not ready"):
        await asyncio.wait_for(slack.socket_mode.wait_for_ack("nope", timeout=0.05), 1)


async def _until_disconnected(client: SocketModeClient) -> bool:
    for _ in range(200):  # bounded: at most 2 s
        if not await client.is_connected():
            return True
        await asyncio.sleep(0.01)
    return False


async def test_while_slack_refuses_new_connections_the_client_reports_not_connected(
    slack: FakeSlack,
) -> None:
    client = SocketModeClient(
        app_token=APP_TOKEN, web_client=AsyncWebClient(base_url=slack.api_url), ping_interval=0.2
    )
    try:
        await client.connect()
        await slack.socket_mode.wait_connected()
        slack.fail_next("apps.connections.open", error="internal_error", times=3)

        await slack.socket_mode.drop_connections()

        assert await _until_disconnected(client)
        await slack.socket_mode.wait_connected(count=2)
        assert await client.is_connected()
        assert len(slack.calls_to("apps.connections.open", ok=False)) == 3
    finally:
        await client.close()
