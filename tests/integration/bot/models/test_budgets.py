"""Budgets end to end: past a case's cap or the workspace's day, turns go on without the model.

The real gateway the composition root builds records every call in the database and asks the
budget gate first; each scripted reply of the fake model counts 160 tokens.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from datetime import UTC, datetime, time, timedelta
from pathlib import Path

import pytest

from tests.fakes.clock import FakeClock
from tests.fakes.knowledge import FakeKnowledge
from tests.fakes.models.llm_server import FakeLLMServer
from tests.fakes.slack.server import FakeSlack
from tests.integration.bot.alerts.alert_harness import ALERT_TOKEN
from tests.integration.bot.conversation.test_commands import fm
from tests.integration.bot.harness import CHANNEL, MODEL_TIMEOUT_S, OPENER, BotHarness, text_of
from tests.integration.bot.replies import chat_reply, statement_reply

TOMORROW = datetime.now(UTC).date() + timedelta(days=1)
EVENING = datetime.combine(TOMORROW, time(22, 0), tzinfo=UTC)
"""Ahead of the real clock, which stamps inbox items: the worker takes them at once."""
NO_MODEL = "without the model"


async def budget_bot(
    slack: FakeSlack, llm: FakeLLMServer, tmp_path: Path, clock: FakeClock, **budgets: str
) -> BotHarness:
    env = {
        "FM_LLM_API_BASE": llm.api_base,
        "FM_LLM_API_KEY": "sk-test-not-a-real-key",
        "FM_LLM_TIMEOUT_S": str(MODEL_TIMEOUT_S),
        "FM_ALERT_TOKEN": ALERT_TOKEN,
        "FM_ALERT_CHANNEL": CHANNEL,
        **budgets,
    }
    return await BotHarness.start(
        slack, llm, tmp_path, knowledge=FakeKnowledge(), env=env, llm=None, clock=clock
    )


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(EVENING)


@pytest.fixture
async def capped(
    slack: FakeSlack, llm: FakeLLMServer, tmp_path: Path, clock: FakeClock
) -> AsyncIterator[BotHarness]:
    harness = await budget_bot(slack, llm, tmp_path, clock, FM_LLM_CASE_BUDGET_TOKENS="200")
    try:
        yield harness
    finally:
        await harness.stop()


@pytest.fixture
async def daily(
    slack: FakeSlack, llm: FakeLLMServer, tmp_path: Path, clock: FakeClock
) -> AsyncIterator[BotHarness]:
    harness = await budget_bot(slack, llm, tmp_path, clock, FM_LLM_DAILY_BUDGET_TOKENS="300")
    try:
        yield harness
    finally:
        await harness.stop()


def last_answer(bot: BotHarness, thread_ts: str) -> str:
    return text_of(bot.bot_messages(thread_ts)[-1])


def channel_notices(bot: BotHarness) -> list[str]:
    """Top-level messages of the alert channel about budgets."""
    found = [text_of(m) for m in bot.slack.messages(CHANNEL) if m.get("bot_id")]
    return [text for text in found if "budget" in text]


async def test_a_case_past_its_cap_goes_on_without_the_model_and_says_so_once(
    capped: BotHarness,
) -> None:
    bot = capped
    thread_ts = await bot.mention("checkout is slow", statement_reply())
    await bot.reply(thread_ts, "p99 is 4 s", chat_reply("4 s is far above normal."))
    asked = len(bot.llm.requests)

    await bot.reply(thread_ts, "it got worse", chat_reply("unused"))
    await bot.reply(thread_ts, "still worse", chat_reply("unused either"))

    assert len(bot.llm.requests) == asked == 2
    answer = last_answer(bot, thread_ts)
    assert "This case has reached its model budget of 200 tokens (320 used)" in answer
    assert bot.bot_messages(thread_ts)[-1]["text"].count("model budget") == 1
    summary = json.dumps(bot.bot_messages(thread_ts)[0]["blocks"], ensure_ascii=False)
    assert "🪙 2 model calls · 320 tokens" in summary  # the living summary's footer
    other_ts = await bot.mention("db-1 is down", statement_reply())
    assert len(bot.llm.requests) == 3  # another case still has its own budget
    assert NO_MODEL not in last_answer(bot, other_ts)
    [notice] = channel_notices(bot)
    assert "reached its model budget of 200 tokens" in notice


async def test_a_workspace_past_its_day_goes_on_without_the_model_until_the_next_day(
    daily: BotHarness, clock: FakeClock
) -> None:
    bot = daily
    first_ts = await bot.mention("checkout is slow", statement_reply())
    await bot.reply(first_ts, "p99 is 4 s", chat_reply("4 s is far above normal."))

    second_ts = await bot.mention("db-1 is down", statement_reply())
    await bot.reply(second_ts, "since 21:50", chat_reply("unused"))

    assert len(bot.llm.requests) == 2
    answer = last_answer(bot, second_ts)
    assert "Today's model budget of 300 tokens is used up (320 used)" in answer
    assert "until 00:00 UTC" in answer
    assert len(channel_notices(bot)) == 1

    clock.advance(hours=3)  # 01:00 the next day
    await bot.reply(second_ts, "and now?")  # the model answers with a reply scripted earlier

    assert len(bot.llm.requests) == 3
    assert "budget" not in bot.bot_messages(second_ts)[-1]["text"]
    assert len(channel_notices(bot)) == 1


async def test_status_cases_and_the_home_say_what_the_model_cost(
    capped: BotHarness, slack: FakeSlack
) -> None:
    bot = capped
    thread_ts = await bot.mention("db-1 is down", statement_reply())
    case = await bot.case(thread_ts)

    status = await fm(bot, f"status {case.short_id}")
    listed = await fm(bot, "cases")
    await bot.send(
        slack.payloads.event(
            "reaction_added",
            type="app_home_opened",
            user=OPENER,
            channel="D0FMHOME",
            tab="home",
            item=None,
            reaction=None,
            item_user=None,
        )
    )
    await bot.settle()

    cost = "1 model call · 160 tokens"
    assert f"Model use: {cost}; no price is known for the model." in text_of(status)
    assert f"🪙 {cost}" in text_of(listed)
    home = slack.home(OPENER)
    assert home is not None
    shown = json.dumps(home["blocks"], ensure_ascii=False)
    assert f"🪙 {cost}" in shown
    assert f"Model use in this workspace today: {cost}" in shown
    assert slack.invalid_payloads == []
