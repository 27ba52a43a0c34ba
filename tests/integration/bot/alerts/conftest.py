"""Fixtures for the alert tests: the bot set up for alerts."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.fakes.models.llm_server import FakeLLMServer
from tests.fakes.slack.server import FakeSlack
from tests.integration.bot.alerts.alert_harness import (
    alert_bot,
)
from tests.integration.bot.harness import BotHarness


@pytest.fixture
async def bot(slack: FakeSlack, llm: FakeLLMServer, tmp_path: Path) -> AsyncIterator[BotHarness]:
    harness = await alert_bot(slack, llm, tmp_path)
    try:
        yield harness
    finally:
        await harness.stop()
