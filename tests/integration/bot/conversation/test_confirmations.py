"""Clicks on confirmation prompts: every kind accepted and rejected, once, by allowed people."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from domain.base import utc_now
from domain.case import Case
from domain.engine.present import confirmation_prompt
from domain.investigation.verification import InvestigationPath
from domain.lifecycle.confirmations import (
    ConfirmationKind,
    ConfirmationPayload,
    ConfirmationState,
    DeliverablesPayload,
    PathChoicePayload,
    RefutationPayload,
    SolutionAppliedPayload,
    SolutionVerifiedPayload,
    StatusChangePayload,
)
from domain.lifecycle.proposals import propose
from domain.lifecycle.special_states import DocumentType
from domain.lifecycle.status import CaseStatus
from tests.fakes.knowledge import FakeKnowledge
from tests.fakes.models.llm_server import FakeLLMServer
from tests.fakes.slack.server import FakeSlack
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
from tests.integration.bot.replies import chat_reply, statement_reply
from tests.unit.domain.builders import add_evidence, add_hypothesis, add_solution

JsonDict = dict[str, Any]
Build = Callable[[Case], ConfirmationPayload]


async def open_case(bot: BotHarness, *, investigating: bool) -> str:
    thread_ts = await bot.mention("payments API returns 500s", statement_reply())
    if investigating:
        (question,) = with_buttons(bot.bot_messages(thread_ts), "fm_answer")
        await bot.click(question, decision="yes")
        assert (await bot.case(thread_ts)).status is CaseStatus.INVESTIGATING
    return thread_ts


async def ask(bot: BotHarness, thread_ts: str, build: Build) -> JsonDict:
    """Put a question to the thread the way a turn would (rules checked by `propose`)."""
    case = await bot.case(thread_ts)
    asked = propose(case, build(case), now=utc_now(), prompt="Shall I go ahead?")
    services = bot.runtime.services
    saved = await services.cases.save(case)
    await services.presenter.show_prompts(saved, [confirmation_prompt(asked)])
    ts = await services.presenter.prompt_ts(saved, asked.confirmation_id)
    assert ts is not None
    message = bot.slack.message(CHANNEL, ts)
    assert message is not None
    return message


def _refutation(case: Case) -> ConfirmationPayload:
    hypothesis = add_hypothesis(case)
    evidence = add_evidence(case)
    return RefutationPayload(
        hypothesis_ids=[hypothesis.hypothesis_id], evidence_id=evidence.evidence_id
    )


def _applied(case: Case) -> ConfirmationPayload:
    return SolutionAppliedPayload(solution_id=add_solution(case, mitigation=True).solution_id)


def _verified(case: Case) -> ConfirmationPayload:
    return SolutionVerifiedPayload(solution_id=add_solution(case).solution_id)


def _path(case: Case) -> ConfirmationPayload:
    return PathChoicePayload(
        path=InvestigationPath.MITIGATION_FIRST, alternate=InvestigationPath.ROOT_CAUSE
    )


def _close(case: Case) -> ConfirmationPayload:
    return StatusChangePayload(to_status=CaseStatus.CLOSED, reason="not worth it")


def _report(case: Case) -> ConfirmationPayload:
    return DeliverablesPayload(documents=[DocumentType.INCIDENT_REPORT])


def as_older_version(message: JsonDict) -> JsonDict:
    """``message`` as versions before the correction form drew it: No was an answer button."""
    older = json.loads(re.sub(r'"fm_correct:[^"]*"', '"fm_answer:no"', json.dumps(message)))
    assert isinstance(older, dict)
    return older


KINDS: dict[ConfirmationKind, tuple[Build, bool]] = {
    ConfirmationKind.STATUS_CHANGE: (_close, False),
    ConfirmationKind.PATH_CHOICE: (_path, True),
    ConfirmationKind.REFUTATION: (_refutation, True),
    ConfirmationKind.SOLUTION_APPLIED: (_applied, True),
    ConfirmationKind.SOLUTION_VERIFIED: (_verified, True),
}


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
    assert f"<@{OPENER}> answered {decision}" in text_of(rewritten)
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
    here = f"After <@{OPENER}>'s yes: here is the case report."
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
    assert "<@W999> answered yes" in text_of(rewritten)


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
    assert f"<@{OPENER}> answered {typed}" in text_of(rewritten)
    expected = CaseStatus.INVESTIGATING if typed == "yes" else CaseStatus.CONSULTING
    assert (await bot.case(thread_ts)).status is expected
    assert slack.invalid_payloads == []


async def test_what_follows_a_click_does_not_repeat_the_question(
    bot: BotHarness, slack: FakeSlack
) -> None:
    thread_ts = await open_case(bot, investigating=True)
    question = await ask(bot, thread_ts, _verified)

    await bot.click(question, decision="yes")

    texts = [text_of(message) for message in bot.bot_messages(thread_ts)]
    assert sum("answered yes: Shall I go ahead?" in text for text in texts) == 1
    (follow_up,) = [text for text in texts if text.startswith("After <@")]
    assert follow_up.startswith(f"After <@{OPENER}>'s yes: the case is now resolved.")
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
    assert "Mark this case resolved?" in text_of(resolve)
    await bot.click(resolve, decision="yes")

    assert (await bot.case(thread_ts)).status is CaseStatus.RESOLVED
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


async def test_two_questions_of_one_reply_each_keep_their_decision_in_their_words(
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
    bot.llm.script()

    await bot.click(asked, decision="yes", settle=True)  # the first question: applied
    shown = slack.message(CHANNEL, asked["ts"])
    assert shown is not None
    await bot.click(shown, decision="no")  # the second: keep it open

    final = text_of(slack.message(CHANNEL, asked["ts"]) or {})
    assert f"<@{OPENER}> answered yes: Has “Roll payments back to v3.1” been applied?" in final
    assert question_buttons(slack.message(CHANNEL, asked["ts"]) or {}) == []
