"""Slack JSON (the real samples) parsed into typed work at the edge."""

from __future__ import annotations

import json

import pytest

from bot.listeners.parsing import (
    parse_click,
    parse_command,
    parse_investigate,
    parse_kb_add,
    parse_message,
)
from bot.slack.ids import (
    ActionId,
    AnswerValue,
    CaseValue,
    InvalidValueError,
    action_id,
    load_value,
    parse_action_id,
)
from domain.lifecycle.confirmations import Decision
from tests.fakes.slack.payloads import SlackPayloads

BOT = "U0FMBOT"
payloads = SlackPayloads()


def test_a_top_level_mention_is_a_human_message_mentioning_the_bot() -> None:
    request = payloads.message(f"<@{BOT}> db-1 is down", channel="C9", user="W5")

    parsed = parse_message(request.payload, bot_user_id=BOT)

    assert parsed is not None
    assert (parsed.text, parsed.user, parsed.channel_id) == ("db-1 is down", "W5", "C9")
    assert parsed.mentions_bot
    assert not parsed.is_reply
    assert parsed.event_id == request.payload["event_id"]
    assert parsed.thread.thread_ts == parsed.ts


def test_a_thread_reply_keeps_its_thread() -> None:
    parsed = parse_message(payloads.message("more", thread_ts="1.000100").payload, bot_user_id=BOT)

    assert parsed is not None
    assert parsed.is_reply
    assert parsed.thread.thread_ts == "1.000100"
    assert not parsed.mentions_bot


@pytest.mark.parametrize(
    "request_",
    [
        payloads.bot_message("another bot"),
        payloads.bot_message("ours", bot_id="B0FMBOT", user=BOT),
        payloads.event("message_changed"),
        payloads.event("message_deleted"),
    ],
)
def test_bots_edits_and_deletions_are_not_human_messages(request_: object) -> None:
    assert parse_message(request_.payload, bot_user_id=BOT) is None  # type: ignore[attr-defined]


def test_a_file_share_carries_its_files_without_downloading_them() -> None:
    file = {
        "id": "F1",
        "name": "app.log",
        "size": 12,
        "mimetype": "text/plain",
        "url_private_download": "https://files.slack.com/files-pri/T-F1/download/app.log",
    }
    parsed = parse_message(
        payloads.file_share([file], "logs", thread_ts="1.1").payload, bot_user_id=BOT
    )

    assert parsed is not None
    (ref,) = parsed.files
    assert (ref.file_id, ref.name, ref.size) == ("F1", "app.log", 12)
    assert ref.download_url is not None


def test_a_click_is_parsed_with_its_thread_and_deduplicated_by_action_ts() -> None:
    value = AnswerValue(case_id="case_1", confirmation_id="cf_1", decision=Decision.YES)
    message = {"ts": "2.000200", "thread_ts": "1.000100", "text": "q"}
    request = payloads.block_action(
        action_id(ActionId.ANSWER, "yes"), value.dump(), message=message
    )

    work, key = parse_click(request.payload)

    assert (work.thread_ts, work.message_ts, work.user_id) == ("1.000100", "2.000200", "W111")
    action = request.payload["actions"][0]
    assert key == f"action:fm_answer:yes:{action['action_ts']}"
    assert load_value(AnswerValue, work.value) == value


def test_investigate_opens_a_case_on_the_messages_thread_with_the_message_as_evidence() -> None:
    request = payloads.message_shortcut("fm_investigate", text="[FIRING] disk full", user="W7")

    work, key = parse_investigate(request.payload)

    assert work.opened_by == "W7"
    assert work.message.text == "[FIRING] disk full"
    assert work.thread.thread_ts == request.payload["message"]["ts"]
    assert key.startswith("shortcut:fm_investigate:")


def test_a_slash_command_is_deduplicated_by_its_trigger_id() -> None:
    request = payloads.slash_command("status FM-1")

    work, key = parse_command(request.payload)

    assert work.text == "status FM-1"
    assert key == f"command:{request.payload['trigger_id']}"
    assert work.response_url


def test_the_kb_add_form_reports_missing_fields() -> None:
    request = payloads.view_submission("fm_kb_add", {}, private_metadata='{"channel_id":"C1"}')

    work, _, errors = parse_kb_add(request.payload)

    assert set(errors) == {"fm_kb_title", "fm_kb_body"}
    assert work.channel_id == "C1"


def test_button_values_round_trip_and_foreign_ones_are_refused() -> None:
    value = CaseValue(case_id="case_1")
    assert load_value(CaseValue, value.dump()) == value
    assert json.loads(value.dump()) == {"case_id": "case_1"}
    with pytest.raises(InvalidValueError):
        load_value(CaseValue, '{"case_id": "c", "admin": true}')
    with pytest.raises(InvalidValueError):
        load_value(AnswerValue, "not json")
    assert parse_action_id("fm_cant_get:req_1") is ActionId.CANT_GET
    assert parse_action_id("someone_else") is None
