"""An alert's thread, read as the paged on-call reads it: its budget, from firing to resolved.

Alertmanager posts a crash-looping alert; the bot analyses it and offers workflows; the on-call
approves one without writing first; they reply with the numbers the "did it work?" card asked
for, say it is stable, and resolve the case with one click. One new message per person's action,
about 700 characters per action (the alert's arrival counted as one), no message over 2,500, no
long block shown twice, no edit that changes nothing, and once the case is resolved no button
left in its thread that would still act on it. The alert's arrival itself posts the alert and
one message under it: the case summary, with the analysis and the workflows it offers under it.
"""

from __future__ import annotations

from domain.lifecycle.status import CaseStatus
from tests.demo.summary import MAX_CHARS_PER_ACTION
from tests.demo.visible import visible_length
from tests.fakes.models.llm_server import reply
from tests.fakes.slack.server import FakeSlack
from tests.fakes.slack.state import BOT_USER_ID
from tests.integration.bot.alerts.alert_harness import with_strategy_buttons
from tests.integration.bot.alerts.remediation_harness import alert_case, decide, message_channel
from tests.integration.bot.alerts.test_alert_case_reads import CRASH_LOGS, worked_reply
from tests.integration.bot.budget import ThreadBudget, live_buttons
from tests.integration.bot.harness import CHANNEL, SRE, BotHarness, text_of, with_buttons
from tests.integration.bot.incident_replies import documents_replies
from tests.integration.bot.replies import chat_reply

NUMBERS = "rollout status: successfully rolled out, 3/3 available, 0 restarts in the last 10 min"


def resolve_reply() -> object:
    """The on-call says it is fine now: the model proposes resolving."""
    return chat_reply(
        "Stable for 15 minutes after the restart: resolving. The crash's cause stays open as a "
        "follow-up.",
        status_change_request={
            "to_status": "resolved",
            "reason": "the restart ended the crash loop",
            "resolution_summary": "payments-api restarted; stable since",
        },
    )


async def test_an_alert_approved_by_the_on_call_keeps_to_its_budget(
    bot: BotHarness, slack: FakeSlack
) -> None:
    slack.workspace.members[CHANNEL] = [BOT_USER_ID, SRE]  # the paged on-call
    budget = ThreadBudget(bot, channel=message_channel(bot))
    thread_ts = await alert_case(bot)  # Alertmanager's, not a person's: measured below
    arrival = len(bot.bot_messages(thread_ts))
    first, _ = with_strategy_buttons(bot, thread_ts)
    await budget.act("approve", decide(bot, first, "approve"))
    case = await bot.case(thread_ts)
    [request] = case.evidence_requests
    await budget.act(
        "numbers", bot.reply(thread_ts, NUMBERS, worked_reply(request.request_id), user=SRE)
    )
    await budget.act(
        "stable",
        bot.reply(thread_ts, "Stable 15 min, no restarts. Resolve it.", resolve_reply(), user=SRE),
    )
    question = with_buttons(bot.bot_messages(thread_ts), "fm_answer")[-1]
    bot.llm.script(*documents_replies())
    await budget.act("resolve", bot.click(question, decision="yes", user=SRE))

    case = await bot.case(thread_ts)
    assert case.status is CaseStatus.RESOLVED
    budget.check(thread_ts)
    bots = bot.bot_messages(thread_ts)
    assert arrival == 2, "the alert, and its summary with the analysis offering the workflows"
    shown = sum(visible_length(m) for m in bots)
    actions = len(budget.posts) + 1  # the people's, and the alert's arrival
    assert shown / actions <= MAX_CHARS_PER_ACTION, f"{shown:,} characters for {actions} actions"
    assert live_buttons(bots) == [], "a button that would still act on the resolved case"
    assert CRASH_LOGS["label"] in "\n".join(text_of(m) for m in bots)


async def test_an_alert_closed_without_approving_leaves_no_workflow_to_approve(
    bot: BotHarness, slack: FakeSlack
) -> None:
    slack.workspace.members[CHANNEL] = [BOT_USER_ID, SRE]
    thread_ts = await alert_case(bot)
    assert len(with_strategy_buttons(bot, thread_ts)) == 2
    close = chat_reply(
        "A known flap: closing without a fix.",
        status_change_request={"to_status": "closed", "reason": "a known flap, no fix needed"},
    )
    await bot.reply(thread_ts, "Known flap, it recovered. Close it.", close, user=SRE)
    question = with_buttons(bot.bot_messages(thread_ts), "fm_answer")[-1]

    await bot.click(question, decision="yes", user=SRE)

    assert (await bot.case(thread_ts)).status is CaseStatus.CLOSED
    bots = bot.bot_messages(thread_ts)
    assert live_buttons(bots) == [], "Approve / Reject left live in the closed case"
    shown = "\n".join(text_of(m) for m in bots)
    assert shown.count("Not decided before the case was closed") == 2


async def test_documents_with_a_withheld_command_come_in_one_message_saying_so(
    bot: BotHarness, slack: FakeSlack
) -> None:
    slack.workspace.members[CHANNEL] = [BOT_USER_ID, SRE]
    thread_ts = await alert_case(bot)
    first, _ = with_strategy_buttons(bot, thread_ts)
    await decide(bot, first, "approve")
    await bot.reply(thread_ts, "Stable 15 min, no restarts. Resolve it.", resolve_reply(), user=SRE)
    question = with_buttons(bot.bot_messages(thread_ts), "fm_answer")[-1]
    report, _ = documents_replies()
    runbook = reply("# Runbook\n\n## Mitigation\n`kubectl rollout restart deploy/payments-api`\n")
    bot.llm.script(report, runbook)
    before = len(bot.bot_messages(thread_ts))

    await bot.click(question, decision="yes", user=SRE)

    assert bot.llm.queue == [], "both documents written"
    bots = bot.bot_messages(thread_ts)
    assert len(bots) == before + 1, [text_of(m)[:80] for m in bots[before:]]
    assert len(bots[-1]["files"]) == 2
    assert "Withheld 1 suggested command" in bots[-1]["text"]
