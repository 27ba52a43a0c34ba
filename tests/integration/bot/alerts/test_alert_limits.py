"""Alerts held back: resolved after the debounce, a group is analysed as usual; past the day's
budget, its analysis is one sentence and the alert channel hears of it once."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from domain.lifecycle.status import CaseStatus
from domain.llm import LLMCallOutcome, LLMCallRecord
from tests.alerts import crash_looping, resolved
from tests.fakes.models.llm_server import FakeLLMServer, reply
from tests.fakes.slack.server import FakeSlack
from tests.integration.bot.alerts.alert_harness import (
    alert_bot,
    alert_messages,
    post_alert,
    thread_text,
)
from tests.integration.bot.harness import BotHarness, eventually, text_of
from tests.unit.domain.workflows.catalog_data import findings

DEBOUNCE_S = 1.0


@pytest.fixture
async def debounced(
    slack: FakeSlack, llm: FakeLLMServer, tmp_path: Path
) -> AsyncIterator[BotHarness]:
    env = {"FM_ALERT_DEBOUNCE_S": str(DEBOUNCE_S)}
    harness = await alert_bot(slack, llm, tmp_path, catalog=False, env=env)
    try:
        yield harness
    finally:
        await harness.stop()


@pytest.fixture
async def over_budget(
    slack: FakeSlack, llm: FakeLLMServer, tmp_path: Path
) -> AsyncIterator[BotHarness]:
    env = {"FM_LLM_DAILY_BUDGET_TOKENS": "1000"}
    harness = await alert_bot(slack, llm, tmp_path, catalog=False, env=env)
    try:
        yield harness
    finally:
        await harness.stop()


async def spend_the_day(bot: BotHarness) -> None:
    """1,100 tokens spent today outside any case (a knowledge-base answer)."""
    await bot.runtime.repositories.llm_calls.record(
        LLMCallRecord(
            case_id=None,
            model="openai/test-model",
            template="kb_answer",
            template_hash="h",
            latency_ms=10,
            prompt_tokens=900,
            completion_tokens=200,
            outcome=LLMCallOutcome.OK,
            at=datetime.now(UTC),
        )
    )


async def test_an_alert_resolved_after_the_debounce_was_analysed_and_stays_open(
    debounced: BotHarness,
) -> None:
    bot = debounced
    bot.llm.script(reply(findings()))
    await post_alert(bot, crash_looping())
    await eventually(lambda: len(bot.llm.requests) == 1, DEBOUNCE_S + 10)
    await bot.settle(expect=2)
    [alert] = alert_messages(bot)

    await post_alert(bot, resolved(crash_looping()))
    await bot.settle()

    text = thread_text(bot, alert["ts"])
    assert "Alert resolved" in text
    assert "Resolved by itself" not in text
    assert (await bot.case(alert["ts"])).status is CaseStatus.CONSULTING


async def test_a_flap_s_case_is_closed_and_its_analysis_never_calls_the_model(
    debounced: BotHarness,
) -> None:
    bot = debounced
    await post_alert(bot, crash_looping())
    await bot.settle()
    [alert] = alert_messages(bot)

    await post_alert(bot, resolved(crash_looping()))
    await bot.settle()
    await asyncio.sleep(DEBOUNCE_S + 1.0)  # the analysis, once available, finds it closed

    assert "Resolved by itself" in thread_text(bot, alert["ts"])
    case = await bot.case(alert["ts"])
    assert (case.status, case.closure_reason) == (CaseStatus.CLOSED, "self_resolved")
    assert bot.llm.requests == []


async def test_past_the_day_s_budget_an_alert_s_analysis_is_one_sentence(
    over_budget: BotHarness,
) -> None:
    bot = over_budget
    await spend_the_day(bot)

    await post_alert(bot, crash_looping())
    await bot.settle(expect=2)
    await post_alert(bot, crash_looping(pod="payments-api-7d9f8-zz9zz"))
    await bot.settle()

    assert bot.llm.requests == []
    [alert, notice] = alert_messages(bot)
    assert "Today's model budget of 1.0k tokens is used up (1.1k used)" in thread_text(
        bot, alert["ts"]
    )
    assert "FaultMaven answers without the model until 00:00 UTC" in text_of(notice)


async def test_after_a_restart_the_alert_channel_is_not_told_of_the_same_day_again(
    slack: FakeSlack, llm: FakeLLMServer, tmp_path: Path
) -> None:
    env = {"FM_LLM_DAILY_BUDGET_TOKENS": "1000"}
    first = await alert_bot(slack, llm, tmp_path, catalog=False, env=env)
    try:
        await spend_the_day(first)
        await post_alert(first, crash_looping())
        await first.settle(expect=2)
    finally:
        await first.stop()
    again = await alert_bot(slack, llm, tmp_path, catalog=False, env=env)
    try:
        await post_alert(again, crash_looping(namespace="checkout"))
        await again.settle(expect=2)
        notices = [m for m in alert_messages(again) if "budget" in text_of(m)]
    finally:
        await again.stop()

    assert len(notices) == 1
    assert llm.requests == []
