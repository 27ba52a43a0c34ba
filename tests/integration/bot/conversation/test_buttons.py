"""The other buttons: "Can't get this" on evidence requests, and Report on the header."""

from __future__ import annotations

import json
from urllib.parse import urlencode

from domain.investigation.evidence_requests import EvidenceStatus
from domain.lifecycle.status import CaseStatus
from tests.fakes.slack.payloads import SlackRequest
from tests.fakes.slack.server import FakeSlack
from tests.integration.bot.harness import (
    OPENER,
    BotHarness,
    text_of,
    with_buttons,
)
from tests.integration.bot.replies import chat_reply, logs_request_reply, statement_reply


async def investigating_with_a_request(bot: BotHarness) -> str:
    thread_ts = await bot.mention("payments API returns 500s", statement_reply())
    (question,) = with_buttons(bot.bot_messages(thread_ts), "fm_answer")
    await bot.click(question, decision="yes")
    await bot.reply(thread_ts, "go on", logs_request_reply())
    return thread_ts


NEXT_BEST = "Then the error-rate panel in Grafana is the next-best source: share a screenshot."


async def test_cant_get_this_blocks_the_request_and_a_turn_offers_the_next_best_source(
    bot: BotHarness, slack: FakeSlack
) -> None:
    thread_ts = await investigating_with_a_request(bot)
    (card,) = with_buttons(bot.bot_messages(thread_ts), "fm_cant_get")
    asked = len(bot.llm.requests)
    bot.llm.script(chat_reply(NEXT_BEST))

    await bot.click(card, action_prefix="fm_cant_get")
    await bot.click(card, action_prefix="fm_cant_get")

    case = await bot.case(thread_ts)
    (request,) = case.evidence_requests
    assert request.status is EvidenceStatus.BLOCKED
    assert len(bot.llm.requests) == asked + 1, "one turn, for the first click only"
    prompt = json.dumps(bot.llm.requests[-1], ensure_ascii=False)
    assert "I can't get “Payments error logs”" in prompt
    assert "next-best source" in prompt
    answer = text_of(bot.bot_messages(thread_ts)[-1])
    assert NEXT_BEST in answer
    assert not answer.startswith("Noted"), "not a dead end: the turn answers"
    (whisper,) = slack.ephemerals(user=OPENER)
    assert "already blocked" in whisper["text"]
    header = text_of(bot.bot_messages(thread_ts)[0])
    assert "Payments error logs" not in header
    (redrawn,) = [m for m in bot.bot_messages(thread_ts) if m["ts"] == card["ts"]]
    assert not with_buttons([redrawn], "fm_cant_get"), "the card's button is gone"
    assert "Marked as not obtainable" in text_of(redrawn)
    assert "Payments error logs" in text_of(redrawn), "the rest of the answer stays as it was"


async def test_report_writes_the_case_report_into_the_thread(
    bot: BotHarness, slack: FakeSlack
) -> None:
    thread_ts = await bot.mention("db-1 is down", statement_reply())
    await bot.click(bot.bot_messages(thread_ts)[0], action_prefix="fm_close_case")
    question = with_buttons(bot.bot_messages(thread_ts), "fm_answer")[-1]
    await bot.click(question, decision="yes")
    assert (await bot.case(thread_ts)).status is CaseStatus.CLOSED
    header = bot.bot_messages(thread_ts)[0]
    bot.llm.script()  # the report is written from the template when the model has nothing

    await bot.click(header, action_prefix="fm_report")

    (upload,) = slack.calls_to("files.completeUploadExternal")
    assert upload["thread_ts"] == thread_ts
    case = await bot.case(thread_ts)
    assert case.documentation.artifacts.case_report_generated
    said = [text_of(message) for message in bot.bot_messages(thread_ts)]
    assert any(text.startswith(f"<@{OPENER}> asked for the case report:") for text in said)


async def test_a_yes_that_closes_the_case_is_audited_after_the_status_change_it_made(
    bot: BotHarness,
) -> None:
    thread_ts = await bot.mention("db-1 is down", statement_reply())
    await bot.click(bot.bot_messages(thread_ts)[0], action_prefix="fm_close_case")
    question = with_buttons(bot.bot_messages(thread_ts), "fm_answer")[-1]

    await bot.click(question, decision="yes")

    case = await bot.case(thread_ts)
    assert case.status is CaseStatus.CLOSED
    closing = next(c for c in case.confirmations if c.state.value == "accepted")
    audit = await bot.runtime.repositories.audit.list_for_case(case.case_id)
    assert [e.action for e in audit][-2:] == ["status_change", "confirmation.answered"]
    answered = audit[-1]
    assert (answered.actor, answered.source) == (OPENER, "slack:button")
    assert answered.detail == {
        "confirmation_id": closing.confirmation_id,
        "kind": closing.kind.value,
        "decision": "yes",
        "state": "accepted",
    }
    assert case.status_history[-1].reason == f"{{@{OPENER}}} asked to close the case"


async def test_a_listener_failure_tells_the_person_a_reference_and_no_exception_text(
    bot: BotHarness, slack: FakeSlack
) -> None:
    shortcut = slack.payloads.message_shortcut("fm_investigate").payload
    del shortcut["message"]["ts"]
    body = urlencode({"payload": json.dumps(shortcut)}).encode()
    broken = SlackRequest(body, "application/x-www-form-urlencoded", shortcut, "interactive")

    status, _ = await bot.send(broken)
    await slack.wait_for("response_url")

    assert status == 500
    said = slack.responses[-1]["text"]
    assert "reference" in said
    assert "KeyError" not in said
    assert all(b["type"] != "actions" for b in slack.responses[-1].get("blocks", []))


async def test_closing_a_case_redraws_its_open_cards_without_buttons(bot: BotHarness) -> None:
    thread_ts = await investigating_with_a_request(bot)
    (card,) = with_buttons(bot.bot_messages(thread_ts), "fm_cant_get")

    await bot.click(bot.bot_messages(thread_ts)[0], action_prefix="fm_close_case")
    question = with_buttons(bot.bot_messages(thread_ts), "fm_answer")[-1]
    await bot.click(question, decision="yes")

    assert (await bot.case(thread_ts)).status is CaseStatus.CLOSED
    assert with_buttons(bot.bot_messages(thread_ts), "fm_cant_get") == [], "no live card"
    (redrawn,) = [m for m in bot.bot_messages(thread_ts) if m["ts"] == card["ts"]]
    assert "No longer needed" in text_of(redrawn)
    assert "Payments error logs" in text_of(redrawn), "the card itself stays"
