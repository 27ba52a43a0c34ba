"""The gateway the composition root builds records every LLM call of a case in the database."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from domain.llm import LLMCallOutcome
from tests.fakes.knowledge import FakeKnowledge
from tests.fakes.models.llm_server import FakeLLMServer, malformed
from tests.fakes.slack.server import FakeSlack
from tests.integration.bot.harness import MODEL_TIMEOUT_S, BotHarness
from tests.integration.bot.replies import chat_reply, statement_reply


@pytest.fixture
async def configured_bot(
    slack: FakeSlack, llm: FakeLLMServer, knowledge: FakeKnowledge, tmp_path: Path
) -> AsyncIterator[BotHarness]:
    env = {
        "FM_LLM_API_BASE": llm.api_base,
        "FM_LLM_API_KEY": "sk-test-not-a-real-key",
        "FM_LLM_TIMEOUT_S": str(MODEL_TIMEOUT_S),
    }
    harness = await BotHarness.start(slack, llm, tmp_path, knowledge=knowledge, env=env, llm=None)
    try:
        yield harness
    finally:
        await harness.stop()


async def test_every_call_of_a_turn_is_kept_with_model_template_hash_tokens_and_outcome(
    configured_bot: BotHarness,
) -> None:
    bot = configured_bot
    thread_ts = await bot.mention("checkout is slow", statement_reply())
    await bot.reply(thread_ts, "p99 is 4 s", chat_reply("4 s is far above normal."))
    case = await bot.case(thread_ts)

    calls = await bot.runtime.repositories.llm_calls.list_for_case(case.case_id)

    assert [c.outcome for c in calls] == [LLMCallOutcome.OK, LLMCallOutcome.OK]
    assert {c.model for c in calls} == {"openai/test-model"}
    assert [c.template for c in calls] == ["consulting", "consulting"]
    assert all(len(c.template_hash) == 64 for c in calls)
    assert all(c.prompt_tokens and c.completion_tokens for c in calls)
    assert calls[0].at <= calls[1].at


async def test_a_failed_call_is_kept_with_its_outcome_and_error(
    configured_bot: BotHarness,
) -> None:
    bot = configured_bot
    thread_ts = await bot.mention("checkout is slow", statement_reply())
    before = await bot.case(thread_ts)

    await bot.reply(thread_ts, "any idea?", malformed(), malformed())

    calls = await bot.runtime.repositories.llm_calls.list_for_case(before.case_id)
    assert calls[0].outcome is LLMCallOutcome.OK
    assert calls[-1].outcome is LLMCallOutcome.INVALID
    assert calls[-1].error
