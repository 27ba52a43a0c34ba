"""Fixtures for the bot end to end: fakes over real HTTP and the real app between them."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.fakes.knowledge import FakeKnowledge
from tests.fakes.models.llm_server import FakeLLMServer
from tests.fakes.slack.server import FakeSlack
from tests.integration.bot.harness import APP_TOKEN, BOT_TOKEN, BotHarness

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")


@pytest.fixture(autouse=True)
def _no_oauth_env(monkeypatch: pytest.MonkeyPatch) -> None:
    # SLACK_CLIENT_ID/SECRET in the environment silently switch Bolt into OAuth mode.
    for name in ("SLACK_CLIENT_ID", "SLACK_CLIENT_SECRET", "SLACK_SIGNING_SECRET"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
async def slack() -> AsyncIterator[FakeSlack]:
    async with FakeSlack(bot_token=BOT_TOKEN, app_token=APP_TOKEN) as fake:
        yield fake


@pytest.fixture
async def llm() -> AsyncIterator[FakeLLMServer]:
    async with FakeLLMServer() as server:
        yield server


@pytest.fixture
def knowledge() -> FakeKnowledge:
    return FakeKnowledge()


@pytest.fixture
async def bot(
    slack: FakeSlack, llm: FakeLLMServer, knowledge: FakeKnowledge, tmp_path: Path
) -> AsyncIterator[BotHarness]:
    harness = await BotHarness.start(slack, llm, tmp_path, knowledge=knowledge)
    try:
        yield harness
    finally:
        await harness.stop()
