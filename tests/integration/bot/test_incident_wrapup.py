"""The incident's wrap-up, over real HTTP: the mitigation is the call to action while the 502s
last, what the engineer says they did is recorded (with Undo) and not asked again, and one click
resolves the case and writes the report; the permanent fix stays as the follow-up."""

from __future__ import annotations

import json
from pathlib import Path

from domain.investigation.evidence_requests import OPEN_STATUSES
from domain.lifecycle.status import CaseStatus
from tests.fakes.slack.server import FakeSlack
from tests.integration.bot.harness import (
    APP_TOKEN,
    BOT_TOKEN,
    CHANNEL,
    BotHarness,
    buttons,
    text_of,
    with_buttons,
)
from tests.integration.bot.incident import incident_bot, run_incident
from tests.integration.bot.incident_replies import (
    CitingModelServer,
    documents_replies,
    logs_request_reply,
    root_cause_reply,
    second_look_reply,
    statement_reply,
)
from tests.integration.bot.incident_story import (
    DAY,
    LOG_NAME,
    OPENING,
    UPLOAD_TEXT,
    Step,
    log_on,
)

MITIGATION = "Roll checkout-api back to v2.14.0"
FIX = "Restore maximumPoolSize to 50"


def _labels(message: dict) -> list[str]:
    return [b["text"]["text"] for b in buttons(message)]


def _header(bot: BotHarness, thread_ts: str) -> str:
    return text_of(bot.bot_messages(thread_ts)[0])


async def test_saying_it_was_rolled_back_leaves_one_click_to_the_report(tmp_path: Path) -> None:
    seen: dict[str, list[dict]] = {}

    async with (
        FakeSlack(bot_token=BOT_TOKEN, app_token=APP_TOKEN) as slack,
        CitingModelServer() as llm,
        incident_bot(slack, llm, tmp_path) as bot,
    ):

        async def remember(step: Step) -> None:
            top = slack.messages(CHANNEL)
            if top:
                seen[step.name] = bot.bot_messages(str(top[0]["ts"]))

        thread_ts = await run_incident(bot, on_step=remember)
        final = bot.bot_messages(thread_ts)
        case = await bot.case(thread_ts)

    assert case.status is CaseStatus.RESOLVED
    before_rollback = seen["rolled_back"]
    header = text_of(before_rollback[0])
    assert f"to apply the mitigation: {MITIGATION}" in header, "Next names the mitigation"
    card = [m for m in before_rollback if "fm_applied" in json.dumps(m.get("blocks", []))]
    assert card, "the mitigation's card carries I've applied it"
    assert {"✅ I've applied it", "Not now"} <= set(_labels(card[-1]))

    before_resolving = seen["confirm_resolved"]
    shown = "\n".join(text_of(m) for m in before_resolving)
    assert "been applied?" not in shown, "what they said they did is not asked again"
    assert "fix it?" not in shown, "what their data shows is not asked again"
    assert "fm_undo" in shown, "what was recorded can be taken back"
    asking = with_buttons(before_resolving, "fm_answer")
    live = [m for m in asking if "✅ Resolve and write the report" in _labels(m)]
    (question,) = live
    assert set(_labels(question)) >= {"✅ Resolve and write the report", "Keep open"}
    assert not any("confirm" in b for b in buttons(question)), "no dialog after the click"
    (prompt,) = [b for b in question["blocks"] if "Resolve the case" in json.dumps(b)]
    said = json.dumps(prompt, ensure_ascii=False)
    assert len(said) < 400, said

    everything = "\n".join(text_of(m) for m in final)
    assert "Shall I write" not in everything, "the report is not offered a second time"
    assert "Follow-up:" in text_of(final[0])
    assert FIX in text_of(final[0])
    (shared,) = [m for m in final if m.get("files")]
    assert len(shared["files"]) == 2


async def _up_to_the_root_cause(bot: BotHarness) -> str:
    """Mention, confirm, upload: the answer with the root cause and its mitigation's card."""
    bot.llm.script(statement_reply())
    thread_ts = await bot.mention(OPENING)
    bot.llm.script(logs_request_reply())
    (asked,) = with_buttons(bot.bot_messages(thread_ts), "fm_answer")[-1:]
    await bot.click(asked, decision="yes")
    bot.llm.queue.clear()
    case = await bot.case(thread_ts)
    open_ids = [r.request_id for r in case.evidence_requests if r.status in OPEN_STATUSES]
    bot.llm.script(root_cause_reply(DAY, answers=open_ids), second_look_reply())
    shared = bot.slack.add_file(LOG_NAME, log_on(DAY))
    await bot.reply(thread_ts, UPLOAD_TEXT, files=[shared])
    bot.llm.queue.clear()
    return thread_ts


def _card(bot: BotHarness, thread_ts: str) -> dict:
    (card,) = [
        m
        for m in bot.bot_messages(thread_ts)
        if MITIGATION in text_of(m) and "Root cause" in text_of(m)
    ][-1:]
    return card


async def test_the_mitigations_buttons_record_it_undo_it_and_wrap_up(tmp_path: Path) -> None:
    async with (
        FakeSlack(bot_token=BOT_TOKEN, app_token=APP_TOKEN) as slack,
        CitingModelServer() as llm,
        incident_bot(slack, llm, tmp_path) as bot,
    ):
        thread_ts = await _up_to_the_root_cause(bot)

        await bot.click(_card(bot, thread_ts), action_prefix="fm_applied")
        card = _card(bot, thread_ts)
        assert "applied it" in text_of(card)
        assert "↩️ Undo" in _labels(card)
        assert "I've applied it" not in json.dumps(card.get("blocks", []))
        (fixed,) = with_buttons(bot.bot_messages(thread_ts), "fm_answer")[-1:]
        assert "Once you have watched it" in text_of(fixed)
        assert {"✅ Fixed", "❌ Not fixed"} <= set(_labels(fixed))

        await bot.click(card, action_prefix="fm_undo")
        card = _card(bot, thread_ts)
        assert "✅ I've applied it" in _labels(card), "taken back: offered again"
        assert not (await bot.case(thread_ts)).progress.mitigation_applied
        withdrawn = [m for m in bot.bot_messages(thread_ts) if m["ts"] == fixed["ts"]]
        assert "no longer applies" in text_of(withdrawn[0]).lower()

        await bot.click(card, action_prefix="fm_applied")
        (fixed,) = with_buttons(bot.bot_messages(thread_ts), "fm_answer")[-1:]
        await bot.click(fixed, decision="yes")
        (resolve,) = with_buttons(bot.bot_messages(thread_ts), "fm_answer")[-1:]
        assert "Resolve and write the report" in " ".join(_labels(resolve))
        bot.llm.script(*documents_replies())
        await bot.click(resolve, decision="yes")
        case = await bot.case(thread_ts)
        header = _header(bot, thread_ts)
        files = [m for m in bot.bot_messages(thread_ts) if m.get("files")]

    assert case.status is CaseStatus.RESOLVED
    assert files, "resolving wrote the report and runbook"
    assert len(files[-1]["files"]) == 2
    assert "Follow-up:" in header
    assert FIX in header


async def test_not_now_leaves_the_mitigation_offered_and_moves_next_on(tmp_path: Path) -> None:
    async with (
        FakeSlack(bot_token=BOT_TOKEN, app_token=APP_TOKEN) as slack,
        CitingModelServer() as llm,
        incident_bot(slack, llm, tmp_path) as bot,
    ):
        thread_ts = await _up_to_the_root_cause(bot)
        assert "to apply the mitigation" in _header(bot, thread_ts)

        await bot.click(_card(bot, thread_ts), action_prefix="fm_not_now")
        card = _card(bot, thread_ts)
        header = _header(bot, thread_ts)
        case = await bot.case(thread_ts)

    assert "✅ I've applied it" in _labels(card)
    assert "Not now" not in _labels(card)
    assert "not now" in text_of(card)
    assert "to apply the mitigation" not in header
    assert case.solutions[0].applied_at is None
