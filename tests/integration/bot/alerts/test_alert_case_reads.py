"""An alert's case reads as a firing alert: since when it fires (the alert's own start), its
severity, who owns the next step, the steps and the "did it work?" request shown once, and that
request's card closed by a reply with the evidence it asked for."""

from __future__ import annotations

import json

from domain.investigation.evidence_requests import EvidenceStatus
from domain.lifecycle.confirmations import Decision
from domain.lifecycle.status import CaseStatus
from tests.alerts import crash_looping, resolved
from tests.fakes.models.llm_server import Scripted
from tests.fakes.slack.server import FakeSlack
from tests.fakes.slack.state import BOT_USER_ID
from tests.integration.bot.alerts.alert_harness import (
    post_alert,
    thread_text,
    with_strategy_buttons,
)
from tests.integration.bot.alerts.remediation_harness import alert_case, decide, join
from tests.integration.bot.harness import CHANNEL, SRE, BotHarness, text_of
from tests.integration.bot.replies import chat_reply

STEP = "kubectl rollout restart deployment/payments-api -n payments"
ASKED = "Did “Restart a crash-looping deployment” work?"


def summary(bot: BotHarness, thread_ts: str) -> str:
    """The case's summary: the first message in the alert's thread."""
    (_, first, *_) = bot.bot_messages(thread_ts)
    return text_of(first)


async def test_the_summary_says_firing_since_the_alerts_start_its_severity_and_the_responders(
    bot: BotHarness,
) -> None:
    thread_ts = await alert_case(bot)

    shown = summary(bot, thread_ts)
    assert "🔥 Firing" in shown
    assert "Being described" not in shown
    assert "Firing since <!date^" in shown
    assert "2026-11-21 14:05 UTC" in shown, "the alert's own startsAt, not when it arrived"
    assert "Severity *warning*" in shown, "the alert's own severity label"
    assert "<@alertmanager>" not in shown
    assert "*Next:* The alert's responders to act on the analysis below" in shown
    (alert, *_) = bot.bot_messages(thread_ts)
    assert "started 2026-11-21 14:05Z" in text_of(alert)
    case = await bot.case(thread_ts)
    assert case.alert is not None
    assert case.alert.severity == "warning"


async def test_after_approval_the_approver_owns_next_and_steps_and_question_show_once(
    bot: BotHarness,
) -> None:
    thread_ts = await alert_case(bot)
    await join(bot, thread_ts)
    first, _ = with_strategy_buttons(bot, thread_ts)

    await decide(bot, first, "approve")

    shown = summary(bot, thread_ts)
    assert f"*Next:* <@{SRE}> to share: {ASKED}" in shown
    assert "<@alertmanager>" not in thread_text(bot, thread_ts)
    said = [text_of(m) for m in bot.bot_messages(thread_ts)]
    assert sum(STEP in text for text in said) == 1, "the steps once, where people act"
    assert sum("show me whether it worked" in text for text in said) == 0
    cards = [text for text in said if f"*📋 {ASKED}*" in text]
    assert len(cards) == 1, "the request once, as its card"


async def test_a_resolved_alert_no_longer_reads_as_firing(bot: BotHarness) -> None:
    thread_ts = await alert_case(bot)

    await post_alert(bot, resolved(crash_looping()))
    await bot.settle()

    shown = summary(bot, thread_ts)
    assert "🔥 Firing" not in shown
    assert "Started <!date^" in shown
    case = await bot.case(thread_ts)
    assert case.alert is not None
    assert case.alert.resolved_at is not None


async def test_the_on_calls_reply_with_the_asked_numbers_closes_the_did_it_work_card(
    bot: BotHarness, slack: FakeSlack
) -> None:
    slack.workspace.members[CHANNEL] = [BOT_USER_ID, SRE]  # the paged on-call
    thread_ts = await alert_case(bot)
    first, _ = with_strategy_buttons(bot, thread_ts)

    await decide(bot, first, "approve")

    case = await bot.case(thread_ts)
    assert case.status is CaseStatus.INVESTIGATING, "the approval was the on-call's Yes"
    [moved] = case.status_history
    assert moved.triggered_by == SRE
    assert "approved the remediation “Restart a crash-looping deployment”" in moved.reason
    answered = case.find_confirmation(moved.confirmation_id)
    assert answered is not None
    assert (answered.answered_by, answered.decision) == (SRE, Decision.YES)
    audit = await bot.runtime.repositories.audit.list_for_case(case.case_id)
    [entry] = [e for e in audit if e.action == "confirmation.answered"]
    assert (entry.actor, entry.detail["state"]) == (SRE, "accepted")
    [card] = request_cards(bot, thread_ts)
    assert "Can't get this" in card, "the request is open"
    assert f"*Next:* <@{SRE}> to share: {ASKED}" in summary(bot, thread_ts)
    [request] = case.evidence_requests

    await bot.reply(
        thread_ts,
        "rollout status: successfully rolled out, 3/3 available, 0 restarts in the last 10 min",
        worked_reply(request.request_id),
        user=SRE,
    )

    case = await bot.case(thread_ts)
    assert case.evidence_requests[0].status is EvidenceStatus.COMPLETE
    [card] = request_cards(bot, thread_ts)
    assert "Can't get this" not in card, "the card is redrawn closed"
    assert "✅ Received." in card
    assert "matched_request_ids" in json.dumps(bot.llm.requests[-1]), "an investigating turn"
    assert f"*Next:* <@{SRE}> to share: {CRASH_LOGS['label']}" in summary(bot, thread_ts)


def request_cards(bot: BotHarness, thread_ts: str) -> list[str]:
    """The "did it work?" request's cards in the thread, with their buttons."""
    shown = [json.dumps(m.get("blocks", []), ensure_ascii=False) for m in bot.thread(thread_ts)]
    return [text for text in shown if f"📋 {ASKED}" in text]


CRASH_LOGS = {
    "label": "Logs of the crash before the restart",
    "description": "The restart stopped the crash loop; what made the pods crash is still open",
    "category": "symptoms",
    "guidance": {"commands": ["kubectl logs deploy/payments-api -n payments --previous"]},
}


def worked_reply(request_id: str) -> Scripted:
    """Investigating: the on-call's numbers answer the request completely; the cause is next."""
    return chat_reply(
        "All 3 replicas are available with no restarts: the restart worked. Why they crashed "
        "is still open.",
        evidence_requests=[CRASH_LOGS],
        classification={
            "matched_request_ids": [request_id],
            "completeness": "complete",
            "completeness_score": 0.95,
            "form": "user_input",
            "evidence_type": "supportive",
            "user_intent": "providing_evidence",
            "rationale": "the rollout status and restart count the request asked for",
        },
    )
