"""litellm must not fetch its price list from the internet: set before it is first imported."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator

import pytest

from tests.fakes.models.llm_server import FakeLLMServer

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")


@pytest.fixture
async def server() -> AsyncIterator[FakeLLMServer]:
    """A fake OpenAI-compatible server for the test."""
    async with FakeLLMServer() as running:
        yield running
