"""Failed work is told in one format, with Retry; Retry runs the same work again, once."""

from __future__ import annotations

import json
import re

from tests.fakes.models.llm_server import refusal
from tests.fakes.slack.server import FakeSlack
from tests.fakes.slack.state import JsonDict
from tests.integration.bot.harness import (
    CHANNEL,
    OPENER,
    SRE,
    BotHarness,
    buttons,
    text_of,
    with_buttons,
)
from tests.integration.bot.replies import chat_reply, statement_reply

ANSWER = "The connection pool is exhausted: raise it to 50."


def failures(bot: BotHarness, thread_ts: str) -> list[JsonDict]:
    return [m for m in bot.bot_messages(thread_ts) if m.get("text", "").startswith("⚠️")]


async def failed_turn(bot: BotHarness, slack: FakeSlack) -> tuple[str, JsonDict]:
    """A case whose latest turn failed: Slack refused to take the turn's first message."""
    thread_ts = await bot.mention("payments API returns 500s", statement_reply())
    slack.fail_next("chat.postMessage", status=503)
    await bot.reply(thread_ts, "the pool metrics are attached", chat_reply(ANSWER))
    (failure,) = failures(bot, thread_ts)
    return thread_ts, failure


async def test_a_failed_turn_is_told_once_with_its_reference_and_a_retry_button(
    bot: BotHarness, slack: FakeSlack
) -> None:
    thread_ts, failure = await failed_turn(bot, slack)

    assert "Something went wrong on my side" in failure["text"]
    assert "ref " in failure["text"]
    # As a word: the fakes' ids (Ev0000503…) may contain the digits.
    assert not re.search(r"\b503\b", text_of(failure))
    assert "SlackApiError" not in text_of(failure)
    (retry,) = buttons(failure)
    assert retry["action_id"] == "fm_retry"
    assert ANSWER not in "\n".join(text_of(m) for m in bot.bot_messages(thread_ts))


async def test_retry_runs_the_turn_again_and_a_double_click_runs_it_once(
    bot: BotHarness, slack: FakeSlack
) -> None:
    thread_ts, failure = await failed_turn(bot, slack)
    asked = len(bot.llm.requests)

    await bot.click(failure, action_prefix="fm_retry", user=SRE, settle=False)
    await bot.click(failure, action_prefix="fm_retry", user=OPENER, settle=False)
    await bot.settle(expect=3)  # two clicks, and the work recorded again once

    said = [text_of(m) for m in bot.bot_messages(thread_ts)]
    assert sum(ANSWER in text for text in said) == 1, "answered once"
    assert len(bot.llm.requests) - asked <= 1, "the model was asked at most once more"
    edited = slack.message(CHANNEL, failure["ts"])
    assert edited is not None
    assert edited["text"] == f"🔁 Retrying at <@{SRE}>'s request…"
    assert buttons(edited) == []
    (note,) = slack.ephemerals(user=OPENER)
    assert "already being retried" in note["text"]
    assert note["thread_ts"] == thread_ts


async def test_a_retry_of_work_that_has_since_succeeded_says_so_privately(
    bot: BotHarness, slack: FakeSlack
) -> None:
    thread_ts, failure = await failed_turn(bot, slack)
    await bot.click(failure, action_prefix="fm_retry")
    messages_before = len(bot.bot_messages(thread_ts))

    await bot.click(failure, action_prefix="fm_retry", user=SRE)  # a client showing the old one

    (note,) = slack.ephemerals(user=SRE)
    assert "succeeded" in note["text"]
    assert len(bot.bot_messages(thread_ts)) == messages_before


async def test_a_retry_button_pointing_at_another_thread_is_refused(
    bot: BotHarness, slack: FakeSlack
) -> None:
    _, failure = await failed_turn(bot, slack)
    other_ts = await bot.mention("db-1 is down", statement_reply())
    (question,) = with_buttons(bot.bot_messages(other_ts), "fm_answer")
    forged = {**question, "blocks": failure["blocks"]}  # the Retry, shown in the other thread

    await bot.click(forged, action_prefix="fm_retry")

    (note,) = slack.ephemerals(user=OPENER)
    assert "not one of mine" in note["text"]
    assert failures(bot, other_ts) == []


async def faulted_turn(bot: BotHarness) -> tuple[str, JsonDict]:
    """A case whose latest turn's model call failed: the provider declined to answer."""
    thread_ts = await bot.mention("payments API returns 500s", statement_reply())
    await bot.reply(thread_ts, "the pool metrics are attached", refusal())
    (*_, fault) = bot.bot_messages(thread_ts)
    return thread_ts, fault


async def test_a_model_failure_is_said_with_its_reference_and_a_retry_button(
    bot: BotHarness,
) -> None:
    _, fault = await faulted_turn(bot)

    assert "declined to answer" in text_of(fault)
    assert re.search(r"ref `[0-9a-f]{8}`", text_of(fault)), text_of(fault)
    (retry,) = buttons(fault)
    assert retry["action_id"] == "fm_retry"


async def test_retry_on_a_model_failure_asks_the_model_again_for_the_same_messages(
    bot: BotHarness, slack: FakeSlack
) -> None:
    thread_ts, fault = await faulted_turn(bot)
    asked = len(bot.llm.requests)
    bot.llm.script(chat_reply(ANSWER))

    await bot.click(fault, action_prefix="fm_retry", user=SRE, settle=False)
    await bot.settle(expect=2)  # the click, and the turn recorded again

    assert len(bot.llm.requests) == asked + 1
    assert "the pool metrics are attached" in json.dumps(bot.llm.requests[-1])
    said = [text_of(m) for m in bot.bot_messages(thread_ts)]
    assert sum(ANSWER in text for text in said) == 1
    edited = slack.message(CHANNEL, fault["ts"])
    assert edited is not None
    assert edited["text"] == f"🔁 Retrying at <@{SRE}>'s request…"
    assert buttons(edited) == []

    await bot.click(fault, action_prefix="fm_retry", user=OPENER)  # a client showing the old one

    (note,) = slack.ephemerals(user=OPENER)
    assert "already retried; its answer is in the thread" in note["text"]
    assert len(bot.llm.requests) == asked + 1, "asked once more, not twice"


async def test_a_first_turn_that_failed_at_the_model_is_retried_into_the_case(
    bot: BotHarness,
) -> None:
    thread_ts = await bot.mention("payments API returns 500s", refusal())
    (*_, fault) = bot.bot_messages(thread_ts)
    assert "declined to answer" in text_of(fault)
    bot.llm.script(statement_reply())

    await bot.click(fault, action_prefix="fm_retry", settle=False)
    await bot.settle(expect=2)

    (question,) = with_buttons(bot.bot_messages(thread_ts), "fm_answer")
    assert "Is that accurate?" in text_of(question)


async def test_a_turn_a_click_started_that_failed_at_the_model_is_retried_by_its_button(
    bot: BotHarness, slack: FakeSlack
) -> None:
    thread_ts = await bot.mention("payments API returns 500s", statement_reply())
    (question,) = with_buttons(bot.bot_messages(thread_ts), "fm_answer")
    bot.llm.script(refusal())
    await bot.click(question, decision="yes")
    (*_, fault) = bot.bot_messages(thread_ts)
    assert "declined to answer" in text_of(fault)
    assert re.search(r"ref `[0-9a-f]{8}`", text_of(fault)), text_of(fault)
    asked = len(bot.llm.requests)
    bot.llm.script(chat_reply(ANSWER))

    await bot.click(fault, action_prefix="fm_retry", user=SRE, settle=False)
    await bot.settle(expect=2)  # the click, and the confirmation's turn recorded again

    assert len(bot.llm.requests) == asked + 1
    assert "problem statement above is confirmed" in json.dumps(bot.llm.requests[-1])
    said = [text_of(m) for m in bot.bot_messages(thread_ts)]
    assert sum(ANSWER in text for text in said) == 1
    edited = slack.message(CHANNEL, fault["ts"])
    assert edited is not None
    assert edited["text"] == f"🔁 Retrying at <@{SRE}>'s request…"

    await bot.click(fault, action_prefix="fm_retry", user=OPENER)  # a client showing the old one

    (note,) = slack.ephemerals(user=OPENER)
    assert "already retried; its answer is in the thread" in note["text"]
    assert len(bot.llm.requests) == asked + 1, "asked once more, not twice"


async def test_a_clicked_turns_retry_shown_in_another_thread_is_refused(
    bot: BotHarness, slack: FakeSlack
) -> None:
    thread_ts = await bot.mention("payments API returns 500s", statement_reply())
    (question,) = with_buttons(bot.bot_messages(thread_ts), "fm_answer")
    bot.llm.script(refusal())
    await bot.click(question, decision="yes")
    (*_, fault) = bot.bot_messages(thread_ts)
    other_ts = await bot.mention("db-1 is down", statement_reply())
    (other,) = with_buttons(bot.bot_messages(other_ts), "fm_answer")
    asked = len(bot.llm.requests)

    await bot.click({**other, "blocks": fault["blocks"]}, action_prefix="fm_retry")

    (note,) = slack.ephemerals(user=OPENER)
    assert "not one of mine" in note["text"]
    assert len(bot.llm.requests) == asked
