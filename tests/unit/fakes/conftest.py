"""Fixtures for the fakes' own tests: a running `FakeSlack` and a real client pointed at it."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from slack_sdk.web.async_client import AsyncWebClient

from tests.fakes.slack.server import FakeSlack

BOT_TOKEN = "xoxb-test"
APP_TOKEN = "xapp-1-test"
SIGNING_SECRET = "8f742231b10e8888abcd99yyyzzz85a5"


@pytest.fixture
async def slack() -> AsyncIterator[FakeSlack]:
    async with FakeSlack(bot_token=BOT_TOKEN, app_token=APP_TOKEN) as fake:
        yield fake


@pytest.fixture
def client(slack: FakeSlack) -> AsyncWebClient:
    return AsyncWebClient(base_url=slack.api_url, token=BOT_TOKEN)


@pytest.fixture(autouse=True)
def _no_oauth_env(monkeypatch: pytest.MonkeyPatch) -> None:
    # SLACK_CLIENT_ID/SECRET in the environment silently switch Bolt into OAuth mode.
    for name in ("SLACK_CLIENT_ID", "SLACK_CLIENT_SECRET", "SLACK_SIGNING_SECRET"):
        monkeypatch.delenv(name, raising=False)
