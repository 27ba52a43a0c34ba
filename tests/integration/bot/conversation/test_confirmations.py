"""Clicks on confirmation prompts: every kind accepted and rejected, once, by allowed people."""

from __future__ import annotations

import json

import pytest

from domain.lifecycle.confirmations import (
    ConfirmationKind,
    ConfirmationState,
)
from domain.lifecycle.status import CaseStatus
from tests.fakes.models.llm_server import reply
from tests.fakes.slack.server import FakeSlack
from tests.integration.bot.conversation.questions import (
    KINDS,
    _applied,
    _close,
    _path,
    _report,
    _verified,
    as_older_version,
    ask,
    open_case,
)
from tests.integration.bot.harness import (
    CHANNEL,
    OPENER,
    BotHarness,
    buttons,
    find_button,
    question_buttons,
    text_of,
    with_buttons,
)
from tests.integration.bot.replies import chat_reply


@pytest.mark.parametrize("decision", ["yes", "no"])
async def test_the_problem_statement_is_confirmed_or_declined_by_a_click(
    bot: BotHarness, slack: FakeSlack, decision: str
) -> None:
    """Yes as it is shown; No as the button of an older version sent it (no form: a No at once;
    today's No opens a form first, see test_correcting.py)."""
    thread_ts = await open_case(bot, investigating=False)
    (question,) = with_buttons(bot.bot_messages(thread_ts), "fm_answer")
    if decision == "no":
        question = as_older_version(question)

    assert await bot.click(question, decision=decision) == 200

    rewritten = slack.message(CHANNEL, question["ts"])
    assert rewritten is not None
    assert question_buttons(rewritten) == []
    done = {"yes": "confirmed the problem", "no": "corrected the problem statement"}[decision]
    assert f"<@{OPENER}> {done} <!date^" in text_of(rewritten), "one line: who did what, when"
    assert "Is this the problem" not in json.dumps(rewritten["blocks"]), "the summary says it"
    case = await bot.case(thread_ts)
    expected = CaseStatus.INVESTIGATING if decision == "yes" else CaseStatus.CONSULTING
    assert case.status is expected
    header = bot.bot_messages(thread_ts)[0]
    assert ("Ongoing" in text_of(header)) is (decision == "yes")


@pytest.mark.parametrize("decision", ["yes", "no"])
@pytest.mark.parametrize("kind", list(KINDS))
async def test_every_kind_of_question_is_answered_by_its_buttons(
    bot: BotHarness, slack: FakeSlack, kind: ConfirmationKind, decision: str
) -> None:
    build, investigating = KINDS[kind]
    thread_ts = await open_case(bot, investigating=investigating)
    question = await ask(bot, thread_ts, build)

    await bot.click(question, decision=decision)

    case = await bot.case(thread_ts)
    answered = next(c for c in case.confirmations if c.kind is kind)
    assert answered.decision is not None
    assert answered.decision.value == decision
    accepted = decision == "yes" or kind is ConfirmationKind.PATH_CHOICE
    wanted = ConfirmationState.ACCEPTED if accepted else ConfirmationState.REJECTED
    assert answered.state is wanted
    rewritten = slack.message(CHANNEL, question["ts"])
    assert rewritten is not None
    assert buttons(rewritten) == []
    assert text_of(rewritten).lstrip().startswith("✅" if accepted else "❌")
    assert slack.invalid_payloads == []


@pytest.mark.parametrize("decision", ["yes", "no"])
async def test_offered_deliverables_are_written_or_declined(
    bot: BotHarness, slack: FakeSlack, decision: str
) -> None:
    thread_ts = await open_case(bot, investigating=False)
    close = await ask(bot, thread_ts, _close)
    await bot.click(close, decision="yes")
    question = await ask(bot, thread_ts, _report)

    await bot.click(question, decision=decision)

    uploads = slack.calls_to("files.completeUploadExternal")
    assert len(uploads) == (1 if decision == "yes" else 0)
    case = await bot.case(thread_ts)
    assert case.status is CaseStatus.CLOSED
    said = [text_of(message) for message in bot.bot_messages(thread_ts)]
    here = "Here is the case report."
    assert any(text.startswith(here) for text in said) is (decision == "yes")


async def test_closing_asks_are_you_sure_before_yes_counts(
    bot: BotHarness, slack: FakeSlack
) -> None:
    thread_ts = await open_case(bot, investigating=False)
    header = bot.bot_messages(thread_ts)[0]

    await bot.click(header, action_prefix="fm_close_case")

    question = with_buttons(bot.bot_messages(thread_ts), "fm_answer")[-1]
    assert "close case" in text_of(question).lower()
    yes = find_button(question, "fm_answer", "yes")
    assert yes["confirm"]["title"]["text"] == "Are you sure?"
    await bot.click(question, decision="yes")
    case = await bot.case(thread_ts)
    assert case.status is CaseStatus.CLOSED
    assert case.closure_reason is not None
    header = bot.bot_messages(thread_ts)[0]
    assert [b["action_id"] for b in buttons(header)] == ["fm_report", "fm_score"]


async def test_what_follows_a_click_does_not_repeat_the_question(
    bot: BotHarness, slack: FakeSlack
) -> None:
    thread_ts = await open_case(bot, investigating=True)
    question = await ask(bot, thread_ts, _verified)

    await bot.click(question, decision="yes")

    texts = [text_of(message) for message in bot.bot_messages(thread_ts)]
    assert sum(f"<@{OPENER}> confirmed it is fixed" in text for text in texts) == 1
    (follow_up,) = [text for text in texts if text.startswith("The case is now")]
    assert follow_up.startswith("The case is now resolved.")
    assert "Shall I go ahead?" not in follow_up


async def test_applied_then_fixed_then_resolve_each_click_asks_the_next_question(
    bot: BotHarness, slack: FakeSlack
) -> None:
    thread_ts = await open_case(bot, investigating=True)
    question = await ask(bot, thread_ts, _applied)

    await bot.click(question, decision="yes")
    fixed = bot.bot_messages(thread_ts)[-1]
    assert "did “Roll back” fix it?" in text_of(fixed)
    await bot.click(fixed, decision="yes")
    resolve = bot.bot_messages(thread_ts)[-1]
    assert "“Roll back” worked. Resolve the case and write the report?" in text_of(resolve)
    bot.llm.script(reply("# Case report\n"), reply("# Runbook\n"))
    await bot.click(resolve, decision="yes")  # resolves and writes, in one click

    assert (await bot.case(thread_ts)).status is CaseStatus.RESOLVED
    (shared,) = slack.calls_to("files.completeUploadExternal")
    assert len(shared["files"]) == 2
    assert slack.invalid_payloads == []


async def test_not_fixed_runs_a_turn_that_tells_the_model(bot: BotHarness) -> None:
    thread_ts = await open_case(bot, investigating=True)
    question = await ask(bot, thread_ts, _verified)
    bot.llm.script(chat_reply("Then the pool is not the whole story: the database's own log next."))

    await bot.click(question, decision="no")

    assert "That did not fix it" in json.dumps(bot.llm.requests[-1])
    assert "the database's own log next" in text_of(bot.bot_messages(thread_ts)[-1])


async def test_choosing_the_path_runs_a_turn_that_takes_its_first_step(bot: BotHarness) -> None:
    thread_ts = await open_case(bot, investigating=True)
    question = await ask(bot, thread_ts, _path)
    bot.llm.script(chat_reply("Mitigation first: roll back the 14:03 deploy, then we dig."))

    await bot.click(question, decision="yes")

    assert "The path is chosen" in json.dumps(bot.llm.requests[-1])
    assert "roll back the 14:03 deploy" in text_of(bot.bot_messages(thread_ts)[-1])


async def test_a_question_and_a_recorded_step_of_one_reply_each_keep_their_decision(
    bot: BotHarness, slack: FakeSlack
) -> None:
    thread_ts = await open_case(bot, investigating=True)
    rollback = {
        "solution_type": "rollback",
        "title": "Roll payments back to v3.1",
        "is_mitigation": True,
        "immediate_action": "kubectl rollout undo deploy/payments -n prod",
    }
    both = chat_reply(
        "I rolled it back, and it looks fixed.",
        solutions_to_add=[rollback],
        milestones={"mitigation_applied": True},
        status_change_request={"to_status": "resolved", "resolution_summary": "Rolled back"},
    )
    await bot.reply(thread_ts, "rolled back, looks fine", both)
    (asked,) = with_buttons(bot.bot_messages(thread_ts), "fm_answer")
    assert "been applied?" not in text_of(asked), "their word is recorded, not asked again"
    bot.llm.script()

    await bot.click(asked, decision="no", settle=True)  # the question: keep it open
    shown = slack.message(CHANNEL, asked["ts"])
    assert shown is not None
    await bot.click(shown, action_prefix="fm_undo")  # the recorded step: taken back

    final = text_of(slack.message(CHANNEL, asked["ts"]) or {})
    assert f"<@{OPENER}> kept it open" in final
    assert f"taken back by <@{OPENER}>" in final
    assert question_buttons(slack.message(CHANNEL, asked["ts"]) or {}) == []
    assert "fm_undo" not in final
