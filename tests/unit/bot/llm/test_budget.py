"""The budget gate: past a case's cap or the workspace's day, no call reaches the model."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from bot.llm.budget import BudgetGate
from bot.llm.gateway import LiteLLMGateway
from domain.budget import Breach, BudgetLimits, BudgetScope, LLMBudgetExceededError
from domain.llm import ChatMessage, LLMCallOutcome, LLMCallRecord, MemoryCallRecorder, ModelTier
from tests.fakes.clock import FakeClock
from tests.fakes.models.gateway import gateway_for
from tests.fakes.models.llm_server import FakeLLMServer, reply
from tests.fakes.spend import MemorySpendLedger

LATE = datetime(2026, 11, 21, 23, 50, tzinfo=UTC)
TEAMS = {"case_1": "T1", "case_2": "T1", "case_9": "T2"}
MESSAGES = [ChatMessage(role="user", content="What happened?")]


class Told:
    """A listener that keeps what it was told."""

    def __init__(self) -> None:
        self.breaches: list[tuple[BudgetScope, str]] = []

    async def __call__(self, breach: Breach, case_id: str) -> None:
        self.breaches.append((breach.scope, case_id))


def gated(
    server: FakeLLMServer,
    limits: BudgetLimits,
    clock: FakeClock,
    ratios: list[float] | None = None,
) -> tuple[LiteLLMGateway, BudgetGate, MemoryCallRecorder]:
    kit = gateway_for(server)
    recorder = MemoryCallRecorder()
    ledger = MemorySpendLedger(recorder, TEAMS)
    report = ratios.append if ratios is not None else None
    gate = BudgetGate(limits, ledger=ledger, teams=ledger, clock=clock, on_day_ratio=report)
    gateway = LiteLLMGateway(kit.config, recorder=recorder, clock=clock, gate=gate)
    gateway.load()
    return gateway, gate, recorder


async def ask(gateway: LiteLLMGateway, case_id: str | None) -> str:
    return await gateway.text(
        tier=ModelTier.MAIN, messages=MESSAGES, template="t", template_hash="h", case_id=case_id
    )


async def test_a_case_past_its_token_cap_makes_no_more_calls(server: FakeLLMServer) -> None:
    clock = FakeClock()
    gateway, gate, _ = gated(server, BudgetLimits(case_tokens=300), clock)
    told = Told()
    gate.subscribe(told)
    server.script(reply("one"), reply("two"), reply("other case"))

    assert await ask(gateway, "case_1") == "one"  # 160 tokens
    assert await ask(gateway, "case_1") == "two"  # 320: the cap is reached after this one
    with pytest.raises(LLMBudgetExceededError) as caught:
        await ask(gateway, "case_1")
    with pytest.raises(LLMBudgetExceededError):
        await ask(gateway, "case_1")
    assert await ask(gateway, "case_2") == "other case"

    assert len(server.requests) == 3
    assert caught.value.breach.sentence() == (
        "This case has reached its model budget of 300 tokens (320 used), so it goes on without"
        " the model; files, the knowledge base and the buttons still work."
    )
    assert told.breaches == [(BudgetScope.CASE, "case_1")]


async def test_a_workspace_past_its_day_waits_for_the_next_day(server: FakeLLMServer) -> None:
    clock = FakeClock(LATE)
    ratios: list[float] = []
    gateway, gate, _ = gated(server, BudgetLimits(day_tokens=150), clock, ratios)
    told = Told()
    gate.subscribe(told)
    server.script(reply("first"), reply("next day"))

    assert await ask(gateway, "case_1") == "first"
    with pytest.raises(LLMBudgetExceededError) as caught:
        await ask(gateway, "case_2")
    assert "until 00:00 UTC" in caught.value.breach.sentence()
    clock.advance(minutes=15)  # 00:05 the next day

    assert await ask(gateway, "case_2") == "next day"
    assert len(server.requests) == 2
    assert told.breaches == [(BudgetScope.DAY, "case_2")]
    assert ratios[:2] == [0.0, pytest.approx(160 / 150)]


async def test_another_workspace_s_spending_does_not_count(server: FakeLLMServer) -> None:
    clock = FakeClock()
    gateway, _, recorder = gated(server, BudgetLimits(day_usd=1.0), clock)
    await recorder.record(
        LLMCallRecord(
            case_id="case_9",
            model="m",
            template="t",
            template_hash="h",
            latency_ms=1,
            cost_usd=5.0,
            outcome=LLMCallOutcome.OK,
            at=clock.now(),
        )
    )
    server.script(reply("fine"))

    assert await ask(gateway, "case_1") == "fine"


async def test_money_counts_where_the_price_is_known(server: FakeLLMServer) -> None:
    clock = FakeClock()
    gateway, _, recorder = gated(server, BudgetLimits(day_usd=1.0), clock)
    await recorder.record(
        LLMCallRecord(
            case_id="case_2",
            model="m",
            template="t",
            template_hash="h",
            latency_ms=1,
            cost_usd=1.25,
            outcome=LLMCallOutcome.OK,
            at=clock.now(),
        )
    )

    with pytest.raises(LLMBudgetExceededError) as caught:
        await ask(gateway, "case_1")

    assert caught.value.breach.limit == "$1.00"
    assert caught.value.breach.spent == "$1.25 spent"
    assert server.requests == []


async def test_without_budgets_nothing_is_summed_and_calls_of_no_case_pass(
    server: FakeLLMServer,
) -> None:
    clock = FakeClock()
    gateway, gate, _ = gated(server, BudgetLimits(), clock)
    server.script(reply("a"), reply("b"))

    assert await gate.breach("case_1") is None
    assert await ask(gateway, "case_1") == "a"
    assert await ask(gateway, None) == "b"
