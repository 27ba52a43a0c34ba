"""`/fm` subcommands (answered privately unless they post in a case thread) and the App Home."""

from __future__ import annotations

import json
from typing import Any

from domain.knowledge import KnowledgeBaseKind
from domain.lifecycle.status import CaseStatus
from tests.fakes.knowledge import FakeKnowledge
from tests.fakes.slack.server import FakeSlack
from tests.integration.bot.harness import (
    CHANNEL,
    OPENER,
    BotHarness,
    buttons,
    find_button,
    text_of,
    with_buttons,
)
from tests.integration.bot.replies import statement_reply

JsonDict = dict[str, Any]


async def fm(bot: BotHarness, text: str, *, user: str = OPENER, expect: int = 1) -> JsonDict:
    """Run `/fm <text>`; return what came back through the response URL."""
    answered = len(bot.slack.responses)
    status, body = await bot.send(
        bot.slack.payloads.slash_command(text, user_id=user, channel_id=CHANNEL)
    )
    assert status == 200, body
    await bot.settle(expect=expect)
    await bot.slack.wait_for("response_url", answered + 1)
    response = bot.slack.responses[-1]
    assert response["response_type"] == "ephemeral"
    return response


async def test_help_is_answered_right_away_in_the_acknowledgement(
    bot: BotHarness, slack: FakeSlack
) -> None:
    status, body = await bot.send(slack.payloads.slash_command("help"))

    assert status == 200
    assert "/fm status <case>" in json.loads(body)["text"] + body
    assert bot.recorded == []


async def test_an_unknown_subcommand_shows_the_help(bot: BotHarness) -> None:
    response = await fm(bot, "frobnicate")

    assert "I don't know `frobnicate`" in text_of(response)
    assert "/fm kb search" in text_of(response)


async def test_cases_lists_open_cases_with_links(bot: BotHarness) -> None:
    thread_ts = await bot.mention("db-1 is down", statement_reply())
    case = await bot.case(thread_ts)

    response = await fm(bot, "cases")

    assert case.short_id in text_of(response)
    assert "slack.com/archives/C111" in text_of(response)


async def test_status_shows_where_a_case_stands(bot: BotHarness) -> None:
    thread_ts = await bot.mention("db-1 is down", statement_reply())
    case = await bot.case(thread_ts)

    found = await fm(bot, f"status {case.short_id.lower()}")
    missing = await fm(bot, "status FM-NOPE")

    assert case.short_id in text_of(found)
    assert "Being described" in text_of(found)
    assert "can't find case `FM-NOPE`" in text_of(missing)


async def test_close_asks_in_the_case_thread_and_a_yes_closes_it(bot: BotHarness) -> None:
    thread_ts = await bot.mention("db-1 is down", statement_reply())
    case = await bot.case(thread_ts)

    response = await fm(bot, f"close {case.short_id}")

    assert "I asked" in text_of(response)
    question = with_buttons(bot.bot_messages(thread_ts), "fm_answer")[-1]
    assert "wants to close" in text_of(question)
    assert "confirm" in find_button(question, "fm_answer", "yes")
    await bot.click(question, decision="yes")
    assert (await bot.case(thread_ts)).status is CaseStatus.CLOSED


async def test_kb_search_cites_the_knowledge_base_and_only_your_runbooks(
    bot: BotHarness, knowledge: FakeKnowledge
) -> None:
    knowledge.add_article("T111", "Disk full runbook", "When the disk is full, rotate logs")

    response = await fm(bot, "kb search disk full")

    assert "Disk full runbook" in text_of(response)
    searched = {kb for kb, _ in knowledge.queries}
    assert searched == {KnowledgeBaseKind.GLOBAL, KnowledgeBaseKind.PERSONAL}


async def test_kb_add_opens_a_modal_whose_submission_saves_a_personal_runbook(
    bot: BotHarness, slack: FakeSlack, knowledge: FakeKnowledge
) -> None:
    status, _ = await bot.send(slack.payloads.slash_command("kb add", user_id=OPENER))
    (opened,) = await slack.wait_for("views.open")
    view = opened["view"]
    values = {
        "fm_kb_title": {"fm_kb_title": {"type": "plain_text_input", "value": "Restart payments"}},
        "fm_kb_body": {"fm_kb_body": {"type": "plain_text_input", "value": "1. drain\n2. go"}},
    }

    submitted, _ = await bot.send(
        slack.payloads.view_submission(
            "fm_kb_add", values, private_metadata=view["private_metadata"], user=OPENER
        )
    )
    await bot.settle()

    assert (status, submitted) == (200, 200)
    (saved,) = knowledge.saved
    assert (saved.kb, saved.scope_id, saved.title) == (
        KnowledgeBaseKind.PERSONAL,
        OPENER,
        "Restart payments",
    )
    (whisper,) = slack.ephemerals(channel=CHANNEL, user=OPENER)
    assert "Saved your runbook" in whisper["text"]


async def test_kb_add_without_a_title_is_refused_in_the_form(
    bot: BotHarness, slack: FakeSlack
) -> None:
    values = {"fm_kb_body": {"fm_kb_body": {"type": "plain_text_input", "value": "steps"}}}

    status, body = await bot.send(slack.payloads.view_submission("fm_kb_add", values))

    assert status == 200
    assert json.loads(body) == {
        "response_action": "errors",
        "errors": {"fm_kb_title": "Give the runbook a title."},
    }


async def test_the_app_home_shows_your_open_cases_and_the_knowledge_base(
    bot: BotHarness, slack: FakeSlack
) -> None:
    thread_ts = await bot.mention("db-1 is down", statement_reply())
    case = await bot.case(thread_ts)
    opened = slack.payloads.event(
        "reaction_added",
        type="app_home_opened",
        user=OPENER,
        channel="D0FMHOME",
        tab="home",
        item=None,
        reaction=None,
        item_user=None,
    )

    status, _ = await bot.send(opened)
    await bot.settle()

    assert status == 200
    home = slack.home(OPENER)
    assert home is not None
    shown = json.dumps(home["blocks"])
    assert case.short_id in shown
    assert "Your open cases" in shown
    assert "Knowledge base" in shown
    assert slack.invalid_payloads == []


async def test_status_alone_lists_the_channels_open_cases_with_a_button_each(
    bot: BotHarness, slack: FakeSlack
) -> None:
    first = await bot.case(await bot.mention("db-1 is down", statement_reply()))
    second = await bot.case(await bot.mention("checkout returns 502", statement_reply()))

    response = await fm(bot, "status")

    listed = text_of(response)
    assert "Open cases in this channel (2)" in listed
    assert first.short_id in listed
    assert second.short_id in listed
    assert "/fm kb search" not in listed, "a short list, not the help"
    button = find_button(response, "fm_case_status")
    assert len(buttons(response)) == 2
    clicked = slack.payloads.block_action(
        button["action_id"], button["value"], channel=CHANNEL, user=OPENER, is_ephemeral=True
    )
    status, _ = await bot.send(clicked)
    assert status == 200
    await bot.settle()
    (shown,) = slack.ephemerals(user=OPENER)
    assert "Being described" in text_of(shown)
    assert "Open the case thread" in text_of(shown)


async def test_status_alone_shows_the_channels_one_open_case(bot: BotHarness) -> None:
    case = await bot.case(await bot.mention("db-1 is down", statement_reply()))

    response = await fm(bot, "status")

    assert case.short_id in text_of(response)
    assert "Being described" in text_of(response)


async def test_status_alone_where_no_case_is_open_says_how_to_name_one(bot: BotHarness) -> None:
    response = await fm(bot, "status")

    assert "No open case in this channel" in text_of(response)
    assert "`/fm status FM-7K3Q`" in text_of(response)
    assert "/fm kb search" not in text_of(response), "not the whole help"
    assert len(response["text"]) < 200


async def test_the_case_status_shortcut_in_a_case_thread_shows_that_case_there(
    bot: BotHarness, slack: FakeSlack
) -> None:
    """Slack runs no slash command in a thread: the shortcut is `/fm status` for the thread."""
    first = await bot.case(await bot.mention("db-1 is down", statement_reply()))
    thread_ts = await bot.mention("checkout returns 502", statement_reply())
    second = await bot.case(thread_ts)
    in_thread = bot.thread(thread_ts)[-1]

    status, _ = await bot.send(
        slack.payloads.message_shortcut("fm_thread_status", message=in_thread, user=OPENER)
    )
    await bot.settle()

    assert status == 200
    (shown,) = slack.ephemerals(user=OPENER)
    assert shown["thread_ts"] == thread_ts, "said in the thread it was asked from"
    assert second.short_id in text_of(shown)
    assert first.short_id not in text_of(shown), "that case, not the channel's list"
    assert "Being described" in text_of(shown)


async def test_the_case_status_shortcut_outside_a_case_answers_for_the_channel(
    bot: BotHarness, slack: FakeSlack
) -> None:
    case = await bot.case(await bot.mention("db-1 is down", statement_reply()))
    other = slack.add_message(CHANNEL, "lunch?", user=OPENER)

    await bot.send(slack.payloads.message_shortcut("fm_thread_status", message=other))
    await bot.settle()

    (shown,) = slack.ephemerals()
    assert case.short_id in text_of(shown)
