"""Fault injection: rate limits with Retry-After, error answers, server errors and latency."""

from __future__ import annotations

import time

import aiohttp
import pytest
from slack_sdk.errors import SlackApiError
from slack_sdk.http_retry.builtin_async_handlers import (
    AsyncConnectionErrorRetryHandler,
    AsyncRateLimitErrorRetryHandler,
)
from slack_sdk.web.async_client import AsyncWebClient

from tests.fakes.slack.server import FakeSlack
from tests.unit.fakes.conftest import BOT_TOKEN


async def test_a_client_with_the_rate_limit_handler_waits_retry_after_and_succeeds(
    slack: FakeSlack,
) -> None:
    client = AsyncWebClient(
        base_url=slack.api_url,
        token=BOT_TOKEN,
        retry_handlers=[AsyncConnectionErrorRetryHandler(), AsyncRateLimitErrorRetryHandler()],
    )
    slack.fail_next("chat.postMessage", status=429, retry_after=1)

    started = time.monotonic()
    posted = await client.chat_postMessage(channel="C1", text="after the limit")

    assert posted["ok"] is True
    assert time.monotonic() - started >= 1.0
    assert [r.status for r in slack.replies] == [429, 200]
    assert len(slack.calls_to("chat.postMessage", ok=False)) == 1
    assert [m["text"] for m in slack.messages("C1")] == ["after the limit"]


async def test_a_429_carries_retry_after_and_ratelimited(
    slack: FakeSlack, client: AsyncWebClient
) -> None:
    slack.fail_next("chat.update", status=429, retry_after=7)

    with pytest.raises(SlackApiError) as limited:
        await client.chat_update(channel="C1", ts="1.000001", text="x")

    assert limited.value.response.status_code == 429
    assert limited.value.response.headers["Retry-After"] == "7"
    assert limited.value.response["error"] == "ratelimited"


async def test_an_error_answer_is_ok_false_with_http_200(
    slack: FakeSlack, client: AsyncWebClient
) -> None:
    slack.fail_next("chat.postMessage", error="ratelimited")

    with pytest.raises(SlackApiError) as failed:
        await client.chat_postMessage(channel="C1", text="x")

    assert failed.value.response.status_code == 200
    assert failed.value.response["error"] == "ratelimited"
    await client.chat_postMessage(channel="C1", text="next one works")
    assert [m["text"] for m in slack.messages("C1")] == ["next one works"]


async def test_a_500_is_not_retried_by_the_default_client(
    slack: FakeSlack, client: AsyncWebClient
) -> None:
    slack.fail_next("chat.postMessage", status=500, times=2)

    for _ in range(2):
        with pytest.raises(SlackApiError) as failed:
            await client.chat_postMessage(channel="C1", text="x")
        assert failed.value.response.status_code == 500

    assert len(slack.calls_to("chat.postMessage")) == 2
    assert slack.messages("C1") == []


async def test_file_downloads_can_fail_too(slack: FakeSlack) -> None:
    file = slack.add_file("app.log", "x")
    slack.fail_next("file_download", status=503)

    async with (
        aiohttp.ClientSession() as session,
        session.get(
            file["url_private_download"], headers={"Authorization": f"Bearer {BOT_TOKEN}"}
        ) as response,
    ):
        assert response.status == 503


async def test_latency_delays_the_answer(slack: FakeSlack, client: AsyncWebClient) -> None:
    slack.set_latency(0.2, "chat.postMessage")

    started = time.monotonic()
    await client.chat_postMessage(channel="C1", text="slow")
    slow = time.monotonic() - started
    started = time.monotonic()
    await client.auth_test()
    fast = time.monotonic() - started

    assert slow >= 0.2
    assert fast < 0.2


def test_fail_next_needs_a_status_or_an_error() -> None:
    with pytest.raises(ValueError, match="status or an error"):
        FakeSlack().fail_next("chat.postMessage")
