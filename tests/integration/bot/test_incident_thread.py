"""The checkout-api incident's thread, read as the on-call engineer reads it: its budget.

One new message per person's action, opening a case included (the case summary with the first
answer under it); the documents come as one message holding both files; no visible message over
3,000 characters; a click never leaves the case waiting for someone to type; the mitigation's
command is visible; the answer to the upload opens with findings that cite lines; no edit leaves a
message as it was.
"""

from __future__ import annotations

import json
from pathlib import Path

from domain.lifecycle.status import CaseStatus
from tests.demo.scenario import record_incident
from tests.demo.summary import count
from tests.fakes.slack.server import FakeSlack
from tests.integration.bot.budget import repeated_blocks
from tests.integration.bot.harness import APP_TOKEN, BOT_TOKEN
from tests.integration.bot.incident import incident_bot, run_incident
from tests.integration.bot.incident_replies import CitingModelServer

ROLLBACK = "kubectl rollout undo deploy/checkout-api -n shop"


async def test_the_incident_thread_keeps_to_its_budget(tmp_path: Path) -> None:
    transcript = await record_incident(tmp_path)
    assert transcript.error is None, transcript.error
    actions = [(a.step.name, a.real) for a in transcript.actions]
    numbers = count(
        transcript.thread, actions, ephemerals=transcript.ephemerals, edits=transcript.edits
    )
    posts = {a.action: a.posts for a in numbers.per_action}

    assert "ask_next" not in posts, "confirming the problem moved the case on by itself"
    assert posts == dict.fromkeys(posts, 1), posts
    (shared,) = [m for m in transcript.thread if m.get("files")][-1:]
    assert len(shared["files"]) == 2, "the case report and the runbook, in the note's message"
    assert not numbers.too_long, numbers.longest
    assert numbers.edits > 0, "answered questions and the summary are edited in place"
    assert numbers.noop_edits == 0, "an edit that changes nothing still marks it (edited)"
    bots = [m for m in transcript.thread if m.get("bot_id")]
    assert repeated_blocks(bots) == [], "a long block shown twice"


async def test_the_incident_thread_shows_the_rollback_and_cites_the_log(tmp_path: Path) -> None:
    transcript = await record_incident(tmp_path)
    bots = [m for m in transcript.thread if m.get("bot_id")]
    shown = [json.dumps(m.get("blocks", []), ensure_ascii=False) for m in bots]

    assert any(ROLLBACK in text for text in shown), "the mitigation's command is visible"
    described = "🛠️ Fix: Rolled checkout-api back"  # the card of the fix the engineer described
    assert not any(described in text for text in shown), "kept by the summary, not a card"
    # The engineer's own words recorded the rollback as applied and shown to work by their data.
    assert "applied and verified" in shown[0], "the summary says where the mitigation stands"
    (answer,) = [m for m in bots if "what stands out" in json.dumps(m.get("blocks", []))]
    assert answer["blocks"][0]["text"]["text"].startswith("The 14:03 rollout"), "answer first"
    (lead,) = [b for b in answer["blocks"] if "what stands out" in json.dumps(b)]
    findings = lead["text"]["text"].splitlines()
    assert findings[0] == "📄 `checkout-api.log` — what stands out:"
    assert len(findings) <= 4, "at most three findings"
    assert "· `:" in findings[1], "the first finding cites its lines, the file named above"
    assert answer["text"].startswith("The 14:03 rollout"), "the notification carries the answer"


async def test_a_request_answered_by_an_upload_loses_its_button(tmp_path: Path) -> None:
    transcript = await record_incident(tmp_path)
    bots = [m for m in transcript.thread if m.get("bot_id")]
    shown = "\n".join(json.dumps(m.get("blocks", []), ensure_ascii=False) for m in bots)

    assert "Received" in shown, "the log request's card says the log arrived"
    assert "Can't get this" not in shown, "no button left on a request already answered"


async def test_the_resolved_incident_forgets_its_log_and_keeps_its_report(tmp_path: Path) -> None:
    async with (
        FakeSlack(bot_token=BOT_TOKEN, app_token=APP_TOKEN) as slack,
        CitingModelServer() as llm,
        incident_bot(slack, llm, tmp_path) as bot,
    ):
        thread_ts = await run_incident(bot)
        case = await bot.case(thread_ts)
        knowledge = bot.runtime.knowledge
        evidence = await knowledge.search_case_evidence(
            team_id=case.team_id, case_id=case.case_id, query="HikariPool connection timeout"
        )
        reports = await knowledge.search_global(team_id=case.team_id, query="checkout-api 502s")

    assert case.status is CaseStatus.RESOLVED
    assert evidence.chunks == [], "the uploaded log is deleted once the case is finished"
    assert reports.chunks, "its case report and runbook stay in the knowledge base"
