"""No on the problem statement: a form with the statement to correct, then the case moves on.

The click's trigger id opens the form while it is fresh (Slack honours it for three seconds); the
correction comes back as a form submission, recorded like a click, and its turn restates the
problem from the person's words and asks again. Where the form cannot be opened, the No is
recorded as it is and its turn asks what to correct.
"""

from __future__ import annotations

import json

from domain.lifecycle.confirmations import ConfirmationState
from tests.fakes.models.llm_server import Scripted
from tests.fakes.slack.payloads import SlackRequest
from tests.fakes.slack.server import FakeSlack
from tests.fakes.slack.state import JsonDict
from tests.integration.bot.harness import (
    CHANNEL,
    OPENER,
    SRE,
    BotHarness,
    find_button,
    text_of,
    with_buttons,
)
from tests.integration.bot.replies import STATEMENT, chat_reply, statement_reply
from tests.integration.engine.thread import json_reply

CORRECTED = "Payments API returns HTTP 500 for card payments only, since the 14:02 deploy"
FORM = "fm_correct_statement"
INPUT = "fm_statement"


def restated_reply() -> Scripted:
    """The model restates the problem from the correction and asks again."""
    return json_reply(
        "Thanks, that narrows it to card payments.",
        proposed_problem_statement=CORRECTED,
    )


async def asked(bot: BotHarness) -> tuple[str, JsonDict]:
    thread_ts = await bot.mention("payments API returns 500s since 14:05", statement_reply())
    (question,) = with_buttons(bot.bot_messages(thread_ts), "fm_correct")
    return thread_ts, question


def submission(slack: FakeSlack, view: JsonDict, text: str, *, user: str = OPENER) -> SlackRequest:
    values = {INPUT: {INPUT: {"type": "plain_text_input", "value": text}}}
    return slack.payloads.view_submission(
        FORM,
        values,
        private_metadata=view["private_metadata"],
        user=user,
        view_id=view["id"],
        blocks=view["blocks"],
    )


async def test_no_opens_a_form_holding_the_statement_and_changes_nothing_yet(
    bot: BotHarness, slack: FakeSlack
) -> None:
    thread_ts, question = await asked(bot)
    before = len(bot.bot_messages(thread_ts))

    status = await bot.click(question, action_prefix="fm_correct", decision="no", settle=False)

    assert status == 200
    (view,) = slack.workspace.views.values()
    assert view["callback_id"] == FORM
    assert STATEMENT in json.dumps(view["blocks"]), "the statement is there to edit"
    case = await bot.case(thread_ts)
    (confirmation,) = case.confirmations
    assert confirmation.is_pending, "nothing is decided until the form is sent"
    assert len(bot.bot_messages(thread_ts)) == before
    assert slack.invalid_payloads == []


async def test_the_sent_correction_answers_no_and_the_problem_is_asked_again(
    bot: BotHarness, slack: FakeSlack
) -> None:
    thread_ts, question = await asked(bot)
    await bot.click(question, action_prefix="fm_correct", decision="no", settle=False)
    (view,) = slack.workspace.views.values()
    bot.llm.script(restated_reply())

    status, body = await bot.send(submission(slack, view, CORRECTED))
    await bot.settle()

    assert status == 200
    assert body in ("", "{}"), body  # the form closes
    case = await bot.case(thread_ts)
    first, second = case.confirmations
    assert first.state is ConfirmationState.REJECTED
    assert second.is_pending
    assert CORRECTED in second.prompt
    assert CORRECTED in bot.llm_prompts(), "the model was given the person's words"
    messages = bot.bot_messages(thread_ts)
    assert "✏️" not in json.dumps(messages[-2].get("blocks")), "the old question lost its buttons"
    assert CORRECTED in text_of(messages[-1])
    assert with_buttons([messages[-1]], "fm_correct"), "the restated problem can be corrected"


async def test_a_form_sent_empty_or_unchanged_says_so_in_the_form(
    bot: BotHarness, slack: FakeSlack
) -> None:
    thread_ts, question = await asked(bot)
    await bot.click(question, action_prefix="fm_correct", decision="no", settle=False)
    (view,) = slack.workspace.views.values()

    _, empty = await bot.send(submission(slack, view, "   "))
    _, unchanged = await bot.send(submission(slack, view, STATEMENT))

    assert json.loads(empty)["errors"] == {INPUT: "Say what is going wrong."}
    assert "as it stands" in json.loads(unchanged)["errors"][INPUT]
    (confirmation,) = (await bot.case(thread_ts)).confirmations
    assert confirmation.is_pending


async def test_an_expired_click_still_answers_no_and_asks_what_to_correct(
    bot: BotHarness, slack: FakeSlack
) -> None:
    thread_ts, question = await asked(bot)
    button = find_button(question, "fm_correct", "no")
    late = slack.payloads.block_action(
        button["action_id"],
        button["value"],
        message=question,
        channel=CHANNEL,
        user=OPENER,
        trigger_id="1700000000000.1.deadbeef",  # issued long ago: Slack says expired_trigger_id
    )
    bot.llm.script(chat_reply("What is wrong in it: the service, the symptom or the time?"))

    status, _ = await bot.send(late)
    await bot.settle()

    assert status == 200
    assert not slack.workspace.views, "no form: its trigger had expired"
    (confirmation,) = (await bot.case(thread_ts)).confirmations
    assert confirmation.state is ConfirmationState.REJECTED
    assert "What is wrong in it" in text_of(bot.bot_messages(thread_ts)[-1])


async def test_someone_who_may_not_answer_gets_no_form_but_the_reason(
    bot: BotHarness, slack: FakeSlack
) -> None:
    thread_ts, question = await asked(bot)
    case = await bot.case(thread_ts)
    (confirmation,) = case.confirmations
    confirmation.answerable_by = [OPENER]
    await bot.runtime.repositories.cases.save(case)

    await bot.click(question, action_prefix="fm_correct", decision="no", user=SRE)

    assert not slack.workspace.views
    (whisper,) = slack.ephemerals(CHANNEL, SRE)
    assert "Only <@W222> can answer this question." in text_of(whisper)
    (confirmation,) = (await bot.case(thread_ts)).confirmations
    assert confirmation.is_pending
