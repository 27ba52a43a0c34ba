"""A call that comes while the gateway still loads litellm waits for it; the event loop does not."""

from __future__ import annotations

import asyncio
import threading
import time
from typing import Any

from bot.llm.config import GatewayConfig
from bot.llm.gateway import LiteLLMGateway
from domain.base import DomainModel
from domain.llm import ChatMessage, MemoryCallRecorder, ModelTier
from tests.fakes.models.llm_server import FakeLLMServer, reply

HELD_S = 10.0
TICKS = 20
TICK_S = 0.01


class Verdict(DomainModel):
    """A tiny reply schema."""

    answer: str
    """What the model concluded."""


class HeldGateway(LiteLLMGateway):
    """The real gateway whose load waits until the test lets it go, as a slow import would."""

    def __init__(self, config: GatewayConfig) -> None:
        super().__init__(config, recorder=MemoryCallRecorder())
        self.release = threading.Event()
        self.loaded_on: list[int] = []

    def load(self) -> None:
        self.loaded_on.append(threading.get_ident())
        self.release.wait(HELD_S)
        super().load()


def held_gateway(server: FakeLLMServer) -> HeldGateway:
    config = GatewayConfig(
        model=server.model, api_base=server.api_base, api_key="sk-test", timeout_s=5.0
    )
    return HeldGateway(config)


async def ask(gateway: LiteLLMGateway) -> Any:
    return await gateway.structured(
        tier=ModelTier.MAIN,
        messages=[ChatMessage(role="user", content="What happened?")],
        schema=Verdict,
        template="test",
        template_hash="h",
    )


async def loop_ticks() -> float:
    """How long TICKS short sleeps take (about TICKS * TICK_S when the loop is free)."""
    started = time.monotonic()
    for _ in range(TICKS):
        await asyncio.sleep(TICK_S)
    return time.monotonic() - started


async def test_a_call_during_the_load_waits_for_it_while_the_event_loop_keeps_running(
    server: FakeLLMServer,
) -> None:
    server.script(reply(Verdict(answer="pool exhausted")))
    gateway = held_gateway(server)
    warming = asyncio.create_task(gateway.warm())
    asking = asyncio.create_task(ask(gateway))

    ticked = await loop_ticks()
    sent_before_loaded = list(server.requests)
    gateway.release.set()
    answer = await asking
    await warming

    assert ticked < 1.0  # the loop was never held by the load
    assert sent_before_loaded == []  # the call waited for litellm and its first-call imports
    assert answer == Verdict(answer="pool exhausted")
    assert gateway.loaded_on != [threading.get_ident()]


async def test_every_caller_waits_for_the_same_single_load(server: FakeLLMServer) -> None:
    server.script(*(reply(Verdict(answer=f"a{i}")) for i in range(3)))
    gateway = held_gateway(server)

    callers = [asyncio.create_task(ask(gateway)) for _ in range(3)]
    await asyncio.sleep(TICK_S)
    gateway.release.set()
    answers = await asyncio.gather(gateway.warm(), *callers)

    assert len(gateway.loaded_on) == 1
    assert sorted(a.answer for a in answers[1:]) == ["a0", "a1", "a2"]


async def test_a_loaded_gateway_does_not_load_again(server: FakeLLMServer) -> None:
    gateway = held_gateway(server)
    gateway.release.set()
    await gateway.warm()

    await gateway.warm()

    assert len(gateway.loaded_on) == 1
