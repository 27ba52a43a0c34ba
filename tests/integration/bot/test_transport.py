"""How Slack reaches the bot: signed HTTP requests, Socket Mode, and the health check."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.fakes.knowledge import FakeKnowledge
from tests.fakes.models.llm_server import FakeLLMServer
from tests.fakes.slack.samples import next_ts
from tests.fakes.slack.server import FakeSlack
from tests.integration.bot.harness import CHANNEL, MENTION, BotHarness, text_of
from tests.integration.bot.replies import statement_reply


async def test_requests_with_a_bad_signature_are_rejected(
    bot: BotHarness, slack: FakeSlack
) -> None:
    request = slack.payloads.message(f"{MENTION} db-1 is down", channel=CHANNEL)

    status, _ = await bot.send(request, secret="not-the-signing-secret")

    assert status == 401
    assert bot.recorded == []


async def test_requests_with_a_stale_timestamp_are_rejected(
    bot: BotHarness, slack: FakeSlack
) -> None:
    request = slack.payloads.message(f"{MENTION} db-1 is down", channel=CHANNEL)

    status, _ = await bot.send(request, timestamp=int(time.time()) - 10 * 60)

    assert status == 401
    assert bot.recorded == []


async def test_an_event_is_acknowledged_only_once_it_is_recorded(
    bot: BotHarness, slack: FakeSlack, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def database_down(*_: object) -> bool:
        raise OSError("database unavailable")

    monkeypatch.setattr(bot.runtime.repositories.inbox, "enqueue", database_down)
    bot.llm.script(statement_reply())
    ts = next_ts()
    slack.add_message(CHANNEL, f"{MENTION} db-1 is down", ts=ts)
    request = slack.payloads.message(f"{MENTION} db-1 is down", channel=CHANNEL, ts=ts)

    refused, _ = await bot.send(request)
    monkeypatch.undo()
    delivered_again, _ = await bot.send(request)  # Slack delivers a failed event again
    recorded_by_the_ack = list(bot.recorded)
    await bot.settle()

    assert (refused, delivered_again) == (500, 200)
    assert len(recorded_by_the_ack) == 1
    assert len(bot.bot_messages(ts)) == 1  # the summary, with the answer and its question
    assert not [c for c in slack.calls if c.method == "chat.postEphemeral"]


async def test_the_url_verification_challenge_is_answered(
    bot: BotHarness, slack: FakeSlack
) -> None:
    status, body = await bot.send(slack.payloads.url_verification("c-123"))

    assert status == 200
    assert "c-123" in body


async def test_the_health_check_reports_the_database_in_http_mode(bot: BotHarness) -> None:
    async with bot.session.get(f"{bot.url}/healthz") as response:
        body = await response.json()

    assert response.status == 200
    assert body == {"database": "ok", "ok": True}


@pytest.fixture
async def socket_bot(
    slack: FakeSlack, llm: FakeLLMServer, knowledge: FakeKnowledge, tmp_path: Path
) -> AsyncIterator[BotHarness]:
    harness = await BotHarness.start(slack, llm, tmp_path, knowledge=knowledge, socket_mode=True)
    try:
        yield harness
    finally:
        await harness.stop()


async def test_socket_mode_receives_a_mention_and_answers_in_the_thread(
    socket_bot: BotHarness, slack: FakeSlack
) -> None:
    await slack.socket_mode.wait_connected()
    socket_bot.llm.script(statement_reply())
    mention = slack.payloads.app_mention(f"{MENTION} db-1 is down", channel=CHANNEL)
    thread_ts = mention.payload["event"]["ts"]

    envelope_id = await slack.socket_mode.send_request(
        slack.payloads.message(f"{MENTION} db-1 is down", channel=CHANNEL, ts=thread_ts)
    )
    ack = await slack.socket_mode.wait_for_ack(envelope_id)
    await socket_bot.settle()

    assert ack == {}
    answer = [text_of(m) for m in socket_bot.bot_messages(thread_ts)]
    assert any("Let me confirm" in t for t in answer)


async def test_socket_mode_health_follows_the_real_connection(
    socket_bot: BotHarness, slack: FakeSlack
) -> None:
    await slack.socket_mode.wait_connected()
    async with socket_bot.session.get(f"{socket_bot.url}/healthz") as response:
        connected = (response.status, await response.json())
    assert socket_bot.server.socket is not None
    await socket_bot.server.socket.close_async()
    async with socket_bot.session.get(f"{socket_bot.url}/healthz") as response:
        closed = (response.status, await response.json())

    assert connected == (200, {"database": "ok", "socket_mode": "connected", "ok": True})
    assert closed[0] == 503
    assert closed[1]["socket_mode"] == "disconnected"
