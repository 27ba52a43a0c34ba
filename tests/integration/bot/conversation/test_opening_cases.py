"""Opening cases: by mention and by the Investigate shortcut; one message opens the thread: the
case's summary, then its first answer."""

from __future__ import annotations

import pytest

from bot.slack.render import limits
from domain.lifecycle.status import CaseStatus
from tests.fakes.slack.server import FakeSlack
from tests.integration.bot.harness import (
    CHANNEL,
    OPENER,
    SRE,
    BotHarness,
    buttons,
    question_buttons,
    text_of,
    with_buttons,
)
from tests.integration.bot.replies import (
    STATEMENT,
    chat_reply,
    logs_request_reply,
    statement_reply,
)


async def test_a_mention_opens_a_case_with_one_message_its_summary_then_the_answer(
    bot: BotHarness, slack: FakeSlack
) -> None:
    thread_ts = await bot.mention("payments API returns 500s since 14:05", statement_reply())

    (opened,) = bot.bot_messages(thread_ts)  # the summary, then the answer and its question
    case = await bot.case(thread_ts)
    blocks = opened["blocks"]
    assert case.short_id in blocks[0]["text"]["text"]
    assert "Being described" in text_of(opened)
    assert STATEMENT in text_of(opened)
    (confirmation,) = case.confirmations
    cid = confirmation.confirmation_id
    assert [b["action_id"] for b in buttons(opened)] == [
        "fm_close_case",
        f"fm_answer:{cid}:yes",
        f"fm_correct:{cid}:no",
    ]
    assert opened["text"].startswith("Let me confirm"), "the notification carries the answer"
    assert case.status is CaseStatus.CONSULTING
    assert case.user_id == OPENER
    assert slack.invalid_payloads == []


async def test_the_investigate_shortcut_opens_a_case_on_any_message(
    bot: BotHarness, slack: FakeSlack
) -> None:
    alert = slack.add_message(
        CHANNEL, "[FIRING] PaymentsHighErrorRate 31% 5xx on payments-api", user="W999"
    )
    bot.llm.script(statement_reply())

    status, _ = await bot.send(
        slack.payloads.message_shortcut("fm_investigate", message=alert, user=SRE)
    )
    await bot.settle()

    assert status == 200
    case = await bot.case(alert["ts"])
    assert case.user_id == SRE
    assert "PaymentsHighErrorRate" in bot.llm_prompts()
    assert len(with_buttons(bot.bot_messages(alert["ts"]), "fm_answer")) == 1
    assert slack.invalid_payloads == []


async def test_the_decision_on_the_first_question_stays_as_the_summary_changes(
    bot: BotHarness, slack: FakeSlack
) -> None:
    thread_ts = await bot.mention("payments API returns 500s since 14:05", statement_reply())
    (opened,) = bot.bot_messages(thread_ts)
    bot.llm.script(logs_request_reply())  # the turn the click starts

    await bot.click(opened, decision="yes")
    await bot.reply(thread_ts, "it is only card payments", chat_reply("Noted: cards only."))

    top = slack.message(CHANNEL, opened["ts"])
    assert top is not None
    assert "Ongoing" in text_of(top), "the summary follows the case"
    assert f"<@{OPENER}> confirmed the problem" in text_of(top), "the decision, still"
    assert question_buttons(top) == []
    assert [b["action_id"] for b in buttons(top)] == ["fm_close_case"]
    assert len(bot.bot_messages(thread_ts)) == 3  # the top, the evidence plan, the last answer


async def test_a_typed_correction_strikes_the_first_question_where_it_stands(
    bot: BotHarness, slack: FakeSlack
) -> None:
    thread_ts = await bot.mention("payments API returns 500s since 14:05", statement_reply())
    (opened,) = bot.bot_messages(thread_ts)
    corrected = "Card payments fail with HTTP 500 since the 14:02 deploy"

    await bot.reply(
        thread_ts,
        "no, only card payments, and it began at the deploy",
        chat_reply("Got it.", proposed_problem_statement=corrected),
    )

    top = slack.message(CHANNEL, opened["ts"])
    assert top is not None
    assert "no longer applies" in text_of(top)
    assert question_buttons(top) == []
    newest = bot.bot_messages(thread_ts)[-1]
    assert newest["ts"] != opened["ts"]
    assert corrected in text_of(newest)
    assert question_buttons(newest), "the corrected statement is asked in the new answer"


async def test_a_first_answer_too_long_to_share_a_message_comes_after_the_summary(
    bot: BotHarness, slack: FakeSlack, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(limits, "MESSAGE_BLOCKS_JSON_MAX", 1000)  # the two fit only apart

    thread_ts = await bot.mention("payments API returns 500s since 14:05", statement_reply())

    summary, answer = bot.bot_messages(thread_ts)
    assert [b["action_id"] for b in buttons(summary)] == ["fm_close_case"]
    assert STATEMENT in text_of(answer)
    assert question_buttons(answer)
    assert slack.invalid_payloads == []
