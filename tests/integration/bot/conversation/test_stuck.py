"""A stuck case over real HTTP: said once with its ways out as buttons, then in one line; each
way out moves the case (a turn, a handover, the close question), for responders only."""

from __future__ import annotations

import json

from domain.lifecycle.special_states import WayOut
from domain.lifecycle.status import CaseStatus
from tests.fakes.slack.server import FakeSlack
from tests.integration.bot.harness import (
    OPENER,
    BotHarness,
    JsonDict,
    buttons,
    text_of,
    with_buttons,
)
from tests.integration.bot.replies import chat_reply, logs_request_reply, statement_reply

STRANGER = "W999"
NO_PROGRESS = "Could you share the error logs? Without them I can't tell more."
STUCK_SAID = "We're stuck"
STILL_STUCK = "Still stuck: see the options above"
BEST_GUESS = "Going with the best guess: the connection pool is exhausted."
OTHER_KIND = "Another kind of cause: a network policy change between payments and the DB."


async def stuck_thread(bot: BotHarness) -> str:
    """A case that stops making progress: investigating, and three answers without any."""
    thread_ts = await bot.mention("payments API returns 500s", statement_reply())
    (question,) = with_buttons(bot.bot_messages(thread_ts), "fm_answer")
    await bot.click(question, decision="yes")
    await bot.reply(thread_ts, "go on", logs_request_reply())
    for _ in range(4):
        case = await bot.case(thread_ts)
        if case.degraded_mode is not None and case.degraded_mode.is_active:
            return thread_ts
        await bot.reply(
            thread_ts, "nothing yet", chat_reply(NO_PROGRESS, outcome="data_not_provided")
        )
    raise AssertionError("the case never became stuck")


def stuck_messages(bot: BotHarness, thread_ts: str) -> list[JsonDict]:
    return [m for m in bot.bot_messages(thread_ts) if STUCK_SAID in text_of(m)]


async def test_stuck_is_said_once_with_four_ways_out_then_in_one_line(bot: BotHarness) -> None:
    thread_ts = await stuck_thread(bot)

    (said,) = stuck_messages(bot, thread_ts)
    labels = [b["text"]["text"] for b in buttons(said) if b["action_id"].startswith("fm_stuck")]
    assert labels == [
        "🎯 Proceed with the best guess",
        "📣 Escalate",
        "🔀 Try another kind of explanation",
        "🗄️ Close the case",
    ]
    assert "To share when escalating" not in text_of(said), "the handover waits for Escalate"
    header = text_of(bot.bot_messages(thread_ts)[0])
    assert "Stuck:" in header
    assert "No progress for 3 turns." in header

    await bot.reply(
        thread_ts, "still nothing", chat_reply(NO_PROGRESS, outcome="data_not_provided")
    )

    later = bot.bot_messages(thread_ts)[-1]
    assert STILL_STUCK in text_of(later)
    assert STUCK_SAID not in text_of(later)
    assert not with_buttons([later], "fm_stuck")
    assert len(stuck_messages(bot, thread_ts)) == 1, "the block is posted once"
    assert len(with_buttons(bot.bot_messages(thread_ts), "fm_stuck")) == 1
    degraded = (await bot.case(thread_ts)).degraded_mode
    assert degraded is not None
    assert degraded.said_at is not None


async def test_each_way_out_moves_the_case(bot: BotHarness, slack: FakeSlack) -> None:
    thread_ts = await stuck_thread(bot)
    (said,) = stuck_messages(bot, thread_ts)

    asked = len(bot.llm.requests)
    bot.llm.script(chat_reply(BEST_GUESS, outcome="data_not_provided"))
    await bot.click(said, action_prefix="fm_stuck", decision=WayOut.BEST_GUESS.value)
    assert len(bot.llm.requests) == asked + 1, "the best guess runs a turn"
    assert "proceed with your best guess" in json.dumps(bot.llm.requests[-1])
    assert BEST_GUESS in text_of(bot.bot_messages(thread_ts)[-1])
    (redrawn,) = stuck_messages(bot, thread_ts)
    assert f"<@{OPENER}> chose: Proceed with the best guess" in text_of(redrawn)
    assert len(with_buttons([redrawn], "fm_stuck")) == 1, "the ways out stay while stuck"

    bot.llm.script(chat_reply(OTHER_KIND, outcome="data_not_provided"))
    await bot.click(said, action_prefix="fm_stuck", decision=WayOut.NEW_CATEGORY.value)
    assert len(bot.llm.requests) == asked + 2
    assert "try another kind of explanation" in json.dumps(bot.llm.requests[-1])
    assert OTHER_KIND in text_of(bot.bot_messages(thread_ts)[-1])

    await bot.click(said, action_prefix="fm_stuck", decision=WayOut.ESCALATE.value)
    assert len(bot.llm.requests) == asked + 2, "escalating asks no model"
    handover = text_of(bot.bot_messages(thread_ts)[-1])
    assert f"<@{OPENER}> is escalating" in handover
    assert "Problem: Payments API returns HTTP 500" in handover
    assert "Stuck: No progress for 3 turns." in handover
    case = await bot.case(thread_ts)
    assert case.escalation_state is not None
    header = text_of(bot.bot_messages(thread_ts)[0])
    assert f"<@{OPENER}> chose: Escalate" in header

    await bot.click(said, action_prefix="fm_stuck", decision=WayOut.CLOSE.value)
    close = bot.bot_messages(thread_ts)[-1]
    assert "wants to close case" in text_of(close)
    await bot.click(close, decision="yes")

    assert (await bot.case(thread_ts)).status is CaseStatus.CLOSED
    assert not with_buttons(bot.bot_messages(thread_ts), "fm_stuck"), "no live way out"
    posted = len(bot.bot_messages(thread_ts))
    await bot.click(said, action_prefix="fm_stuck", decision=WayOut.BEST_GUESS.value)
    assert len(bot.bot_messages(thread_ts)) == posted, "a finished case: nothing posted"
    assert len(bot.llm.requests) == asked + 2
    assert "is closed: nothing changed" in slack.ephemerals(user=OPENER)[-1]["text"]


async def test_only_responders_choose_a_way_out(bot: BotHarness, slack: FakeSlack) -> None:
    thread_ts = await stuck_thread(bot)
    (said,) = stuck_messages(bot, thread_ts)
    posted = len(bot.bot_messages(thread_ts))

    await bot.click(said, action_prefix="fm_stuck", decision=WayOut.ESCALATE.value, user=STRANGER)

    assert len(bot.bot_messages(thread_ts)) == posted
    (refusal,) = slack.ephemerals(user=STRANGER)
    assert "Only the people working on this case" in refusal["text"]
    case = await bot.case(thread_ts)
    assert case.escalation_state is None
    assert case.degraded_mode is not None
    assert case.degraded_mode.chosen is None
