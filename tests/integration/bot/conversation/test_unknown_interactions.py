"""Interactions the app does not know are acknowledged (never Slack's 404) and told privately."""

from __future__ import annotations

import json
import logging

import pytest

from bot.slack.render.errors import STALE_BUTTON, STALE_FORM, STALE_FORM_INPUT, STALE_SHORTCUT
from domain.lifecycle.status import CaseStatus
from tests.fakes.slack.server import FakeSlack
from tests.integration.bot.harness import CHANNEL, OPENER, BotHarness, with_buttons
from tests.integration.bot.replies import statement_reply

SECTION_ONLY = [{"type": "section", "block_id": "s1", "text": {"type": "mrkdwn", "text": "Hi"}}]


async def test_a_button_of_an_older_version_is_acknowledged_and_the_clicker_told_privately(
    bot: BotHarness, slack: FakeSlack, caplog: pytest.LogCaptureFixture
) -> None:
    thread_ts = await bot.mention("payments API returns 500s", statement_reply())
    (question,) = with_buttons(bot.bot_messages(thread_ts), "fm_answer")
    caplog.set_level(logging.INFO, logger="bot.listeners.unknown")

    status, _ = await bot.send(
        slack.payloads.block_action(
            "fm_escalate:old", "{}", message=question, channel=CHANNEL, user=OPENER
        )
    )

    assert status == 200
    (note,) = slack.ephemerals(channel=CHANNEL, user=OPENER)
    assert note["text"] == STALE_BUTTON
    assert note["thread_ts"] == thread_ts
    logged = [r for r in caplog.records if r.getMessage() == "unknown interaction acknowledged"]
    assert [(r.interaction, r.interaction_id) for r in logged] == [  # type: ignore[attr-defined]
        ("block_actions", "fm_escalate:old")
    ]
    assert bot.recorded[-1].kind != "click", "nothing was queued for it"


async def test_a_known_button_still_reaches_its_service(bot: BotHarness, slack: FakeSlack) -> None:
    thread_ts = await bot.mention("payments API returns 500s", statement_reply())
    (question,) = with_buttons(bot.bot_messages(thread_ts), "fm_answer")

    status = await bot.click(question, decision="yes")

    assert status == 200
    assert (await bot.case(thread_ts)).status is CaseStatus.INVESTIGATING
    assert slack.ephemerals() == []


async def test_an_unknown_message_shortcut_is_acknowledged_and_told_in_its_channel(
    bot: BotHarness, slack: FakeSlack
) -> None:
    status, _ = await bot.send(slack.payloads.message_shortcut("fm_summarise", user=OPENER))

    assert status == 200
    (note,) = slack.ephemerals(channel=CHANNEL, user=OPENER)
    assert note["text"] == STALE_SHORTCUT


async def test_an_unknown_global_shortcut_is_acknowledged_without_a_word(
    bot: BotHarness, slack: FakeSlack
) -> None:
    status, body = await bot.send(slack.payloads.global_shortcut("fm_new_incident"))

    assert (status, body) == (200, "")
    assert slack.ephemerals() == []


async def test_an_unknown_form_stays_open_and_says_under_its_input_why_it_cant_be_sent(
    bot: BotHarness, slack: FakeSlack
) -> None:
    status, body = await bot.send(slack.payloads.view_submission("fm_old_form"))

    assert status == 200
    assert json.loads(body) == {"response_action": "errors", "errors": {"hspI": STALE_FORM_INPUT}}


async def test_an_unknown_form_without_inputs_is_replaced_by_a_note(
    bot: BotHarness, slack: FakeSlack
) -> None:
    status, body = await bot.send(
        slack.payloads.view_submission("fm_old_form", values={}, blocks=SECTION_ONLY)
    )

    assert status == 200
    answer = json.loads(body)
    assert answer["response_action"] == "update"
    assert answer["view"]["blocks"][0]["text"]["text"] == STALE_FORM
    assert "submit" not in answer["view"]


async def test_closing_an_unknown_form_and_asking_for_options_are_acknowledged(
    bot: BotHarness, slack: FakeSlack
) -> None:
    closed = await bot.send(slack.payloads.view_closed("fm_old_form"))
    options = await bot.send(slack.payloads.block_suggestion("fm_pick_service", "pay"))

    assert closed == (200, "")
    assert options[0] == 200
    assert json.loads(options[1]) == {"options": []}
    assert slack.ephemerals() == []
