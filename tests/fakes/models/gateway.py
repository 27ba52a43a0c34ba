"""Building the real litellm gateway against the fake server, with waits recorded, not slept."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from bot.llm.config import GatewayConfig
from bot.llm.gateway import LiteLLMGateway
from domain.llm import MemoryCallRecorder
from tests.fakes.models.llm_server import ScriptedModelServer

TEST_MODEL = "openai/test-model"


@dataclass
class RecordedSleeps:
    """Stands in for asyncio.sleep: remembers each requested wait and returns at once."""

    waits: list[float] = field(default_factory=list)

    async def __call__(self, seconds: float) -> None:
        self.waits.append(seconds)


@dataclass
class GatewayKit:
    """The gateway and what it talks to."""

    gateway: LiteLLMGateway
    recorder: MemoryCallRecorder
    sleeps: RecordedSleeps
    config: GatewayConfig


def gateway_for(
    server: ScriptedModelServer, *, jitter: Callable[[], float] = lambda: 1.0, **overrides: Any
) -> GatewayKit:
    """A loaded gateway on the fake server: tiny backoffs, no jitter randomness, 2 s timeout.

    ``jitter`` draws the random share of each backoff (1.0: the whole delay); ``overrides`` change
    the gateway's configuration.
    """
    config = GatewayConfig(
        model=server.model,
        api_base=server.api_base,
        api_key="sk-test-not-a-real-key",
        timeout_s=2.0,
        max_retries=2,
        backoff_base_s=0.01,
        backoff_max_s=5.0,
    )
    config = replace(config, **overrides)
    recorder = MemoryCallRecorder()
    sleeps = RecordedSleeps()
    gateway = LiteLLMGateway(config, recorder=recorder, sleep=sleeps, jitter=jitter)
    # As the bot's warm-up does: the first call's imports (~0.5 s, more on a loaded machine) are
    # not counted against the 2 s timeout of the first test to call the model.
    gateway.load()
    return GatewayKit(gateway, recorder, sleeps, config)
