"""Who may answer a question: once per question, people of the case (or its confirmers),
and a question replaced by a newer one no longer counts."""

from __future__ import annotations

from pathlib import Path

import pytest

from domain.lifecycle.confirmations import (
    ConfirmationKind,
    ConfirmationState,
)
from domain.lifecycle.status import CaseStatus
from tests.fakes.knowledge import FakeKnowledge
from tests.fakes.models.llm_server import FakeLLMServer
from tests.fakes.slack.server import FakeSlack
from tests.integration.bot.conversation.questions import (
    _path,
    ask,
    open_case,
)
from tests.integration.bot.harness import (
    CHANNEL,
    OPENER,
    BotHarness,
    buttons,
    question_buttons,
    text_of,
    with_buttons,
)
from tests.integration.bot.replies import chat_reply


async def test_a_double_click_applies_once_and_says_so_privately(
    bot: BotHarness, slack: FakeSlack
) -> None:
    thread_ts = await open_case(bot, investigating=False)
    (question,) = with_buttons(bot.bot_messages(thread_ts), "fm_answer")

    await bot.click(question, decision="yes", settle=False)
    await bot.click(question, decision="yes", settle=False)
    await bot.settle(expect=2)

    case = await bot.case(thread_ts)
    assert case.status is CaseStatus.INVESTIGATING
    assert len(case.status_history) == 1
    (whisper,) = slack.ephemerals(user=OPENER)
    assert "already answered" in whisper["text"]


async def test_a_click_by_someone_outside_the_case_changes_nothing(
    bot: BotHarness, slack: FakeSlack
) -> None:
    thread_ts = await open_case(bot, investigating=False)
    (question,) = with_buttons(bot.bot_messages(thread_ts), "fm_answer")

    await bot.click(question, decision="yes", user="W999")

    case = await bot.case(thread_ts)
    assert case.status is CaseStatus.CONSULTING
    (whisper,) = slack.ephemerals(user="W999")
    assert (
        "Only the people working on this case can answer this question: "
        "write in this thread to join it, then click again."
    ) in whisper["text"]
    still = slack.message(CHANNEL, question["ts"])
    assert still is not None
    assert buttons(still) != []


async def test_an_outsider_who_writes_in_the_thread_may_then_answer(
    bot: BotHarness, slack: FakeSlack
) -> None:
    thread_ts = await open_case(bot, investigating=False)
    (question,) = with_buttons(bot.bot_messages(thread_ts), "fm_answer")
    await bot.click(question, decision="yes", user="W999")
    assert "write in this thread to join it" in slack.ephemerals(user="W999")[0]["text"]

    await bot.reply(thread_ts, "I'm on call for payments too", chat_reply("Welcome."), user="W999")
    await bot.click(question, decision="yes", user="W999")

    case = await bot.case(thread_ts)
    assert "W999" in case.participants
    assert case.status is CaseStatus.INVESTIGATING
    assert len(slack.ephemerals(user="W999")) == 1, "the second click was not refused"
    rewritten = slack.message(CHANNEL, question["ts"])
    assert rewritten is not None
    assert "<@W999> confirmed the problem" in text_of(rewritten)


async def test_with_a_confirmers_group_a_refusal_names_the_group(
    slack: FakeSlack, llm: FakeLLMServer, tmp_path: Path
) -> None:
    slack.workspace.usergroups["S0LEADS"] = ["W555"]
    harness = await BotHarness.start(
        slack, llm, tmp_path, knowledge=FakeKnowledge(), confirmers_usergroup="S0LEADS"
    )
    try:
        thread_ts = await open_case(harness, investigating=False)
        (question,) = with_buttons(harness.bot_messages(thread_ts), "fm_answer")
        await harness.click(question, decision="yes")
        await harness.click(question, decision="yes", user="W555")
        case = await harness.case(thread_ts)
    finally:
        await harness.stop()

    (whisper,) = slack.ephemerals(user=OPENER)
    assert "Only members of <!subteam^S0LEADS> can answer this question." in whisper["text"]
    assert case.status is CaseStatus.INVESTIGATING


async def test_a_click_on_a_replaced_question_says_it_no_longer_applies(
    bot: BotHarness, slack: FakeSlack
) -> None:
    thread_ts = await open_case(bot, investigating=True)
    first = await ask(bot, thread_ts, _path)
    await ask(bot, thread_ts, _path)

    await bot.click(first, decision="yes")

    (whisper,) = slack.ephemerals(user=OPENER)
    assert "no longer applies" in whisper["text"]
    case = await bot.case(thread_ts)
    states = [c.state for c in case.confirmations if c.kind is ConfirmationKind.PATH_CHOICE]
    assert states == [ConfirmationState.SUPERSEDED, ConfirmationState.PENDING]


@pytest.mark.parametrize("typed", ["yes", "no"])
async def test_a_typed_answer_rewrites_the_question_as_a_click_would(
    bot: BotHarness, slack: FakeSlack, typed: str
) -> None:
    thread_ts = await open_case(bot, investigating=False)
    (question,) = with_buttons(bot.bot_messages(thread_ts), "fm_answer")

    await bot.reply(thread_ts, typed, chat_reply("Noted."))

    rewritten = slack.message(CHANNEL, question["ts"])
    assert rewritten is not None
    assert question_buttons(rewritten) == []
    done = {"yes": "confirmed the problem", "no": "corrected the problem statement"}[typed]
    assert f"<@{OPENER}> {done}" in text_of(rewritten)
    expected = CaseStatus.INVESTIGATING if typed == "yes" else CaseStatus.CONSULTING
    assert (await bot.case(thread_ts)).status is expected
    assert slack.invalid_payloads == []
