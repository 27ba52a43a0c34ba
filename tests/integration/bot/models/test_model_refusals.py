"""A provider that answers with a refusal is named in the thread, never called unreachable."""

from __future__ import annotations

from pathlib import Path

import pytest

from domain.scoring.model import ScoringStatus
from tests.alerts import crash_looping
from tests.fakes.models.llm_server import FakeLLMServer, cut_off, filtered, refusal, status
from tests.fakes.slack.server import FakeSlack
from tests.integration.bot.alerts.alert_harness import alert_bot, alert_messages, post_alert
from tests.integration.bot.harness import BotHarness, text_of
from tests.integration.bot.scoring.scoring_steps import closed_case, fm, latest_scoring

UNREACHABLE = "could not be reached"
CASES = {
    "bad key": (
        status(401, message="Incorrect API key provided: sk-test***"),
        ["rejected the API key for openai/test-model (401)", "FM_LLM_API_KEY", "fm doctor --deep"],
    ),
    "forbidden": (
        status(403, message="Project does not have access to model"),
        ["refused this key access to openai/test-model (403)", "fm doctor --deep"],
    ),
    "content filter": (
        filtered(),
        ["content filter blocked the request", "rephrase the message"],
    ),
    "context too long": (
        status(400, message="This model's maximum context length is 8192 tokens."),
        ["too long for the context window of openai/test-model", "shorter excerpt"],
    ),
    "declined": (
        refusal(),
        ["The model openai/test-model declined to answer", "rephrase the request"],
    ),
    "bad request": (
        status(400, message="Invalid value for 'temperature'."),
        ["refused the request to openai/test-model as invalid (400)", "fm doctor --deep"],
    ),
}


@pytest.mark.parametrize("case", list(CASES))
async def test_each_refusal_is_said_in_its_own_sentence(bot: BotHarness, case: str) -> None:
    scripted, words = CASES[case]

    thread_ts = await bot.mention("checkout-api returns 502 since 14:05", scripted)

    (*_, answer) = bot.bot_messages(thread_ts)
    shown = text_of(answer)
    for expected in words:
        assert expected in shown, (expected, shown)
    assert "nothing in the case changed" in shown
    assert UNREACHABLE not in "\n".join(text_of(m) for m in bot.bot_messages(thread_ts))
    assert len(bot.llm.requests) == 1, "a refusal is not retried"


async def test_an_unknown_model_is_named_with_the_setting_to_check(
    bot: BotHarness,
) -> None:
    bot.llm.models = {"gpt-4o-mini"}

    thread_ts = await bot.mention("checkout-api returns 502 since 14:05")

    shown = text_of(bot.bot_messages(thread_ts)[-1])
    assert "does not know the model openai/test-model (404)" in shown
    assert "check FM_LLM_MODEL" in shown


async def test_a_reply_cut_off_twice_says_so(bot: BotHarness) -> None:
    body = {"agent_response": "x" * 400}

    thread_ts = await bot.mention("checkout-api returns 502", cut_off(body), cut_off(body))

    shown = text_of(bot.bot_messages(thread_ts)[-1])
    assert "cut off at its output limit" in shown
    assert UNREACHABLE not in shown


async def test_a_refused_alert_analysis_names_the_refusal(
    slack: FakeSlack, llm: FakeLLMServer, tmp_path: Path
) -> None:
    harness = await alert_bot(slack, llm, tmp_path)
    try:
        harness.llm.script(status(401, message="invalid api key"))
        await post_alert(harness, crash_looping())
        await harness.settle(expect=2)
        thread_ts = str(alert_messages(harness)[0]["ts"])
        shown = "\n".join(text_of(m) for m in harness.thread(thread_ts))
    finally:
        await harness.stop()

    assert "rejected the API key for openai/test-model (401), so there is no analysis" in shown
    assert UNREACHABLE not in shown


async def test_a_refused_judge_fails_the_scoring_at_once_with_the_reason(bot: BotHarness) -> None:
    thread_ts = await closed_case(bot)
    case = await bot.case(thread_ts)
    bot.llm.script(status(401, message="invalid api key"))

    await fm(bot, f"score {case.short_id}", expect=2)

    score = await latest_scoring(bot, thread_ts)
    assert score.status is ScoringStatus.FAILED
    assert score.error_message is not None
    assert "rejected the API key for openai/test-model (401)" in score.error_message
    assert bot.judge_waits.waits == [], "a refusal is not retried"
