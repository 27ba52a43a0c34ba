"""Approve / Reject through Slack buttons: who may decide, the audit, evidence after, and the
alert case going on as a normal case."""

from __future__ import annotations

from pathlib import Path

from domain.workflows.remediation import StrategyStatus
from tests.alerts import crash_looping
from tests.fakes.models.llm_server import FakeLLMServer
from tests.fakes.slack.server import FakeSlack
from tests.fakes.slack.state import BOT_USER_ID
from tests.integration.bot.alerts.alert_harness import (
    alert_bot,
    alert_messages,
    analysis,
    close_case,
    post_alert,
    thread_text,
    with_strategy_buttons,
)
from tests.integration.bot.alerts.remediation_harness import (
    OUTSIDER,
    alert_case,
    decide,
    join,
    message_channel,
    strategies_of,
)
from tests.integration.bot.budget import ThreadBudget
from tests.integration.bot.harness import CHANNEL, SRE, BotHarness, text_of
from tests.integration.bot.replies import chat_reply
from tests.unit.domain.workflows.catalog_data import (
    PARAMETERS,
    RESTART,
    ROLLBACK,
    strategy,
)


async def test_approval_hands_the_steps_to_people_audits_it_and_asks_for_evidence(
    bot: BotHarness,
) -> None:
    budget = ThreadBudget(bot, channel=message_channel(bot))
    thread_ts = await alert_case(bot)
    await budget.act("join", join(bot, thread_ts))
    first, _ = with_strategy_buttons(bot, thread_ts)

    status = await budget.act("approve", decide(bot, first, "approve"))

    assert status == 200
    approved, withdrawn = await strategies_of(bot, thread_ts)
    assert approved.status is StrategyStatus.EXECUTED
    assert approved.decided_by == SRE
    assert withdrawn.status is StrategyStatus.SUPERSEDED
    assert with_strategy_buttons(bot, thread_ts) == [], "both strategy messages were rewritten"
    thread = thread_text(bot, thread_ts)
    assert f"Approved by <@{SRE}>" in thread
    assert "Not needed: another workflow of this analysis was approved" in thread
    assert "No automation is configured, so please run it by hand" in thread
    assert "kubectl rollout restart deployment/payments-api -n payments" in thread
    case = await bot.case(thread_ts)
    [request] = case.evidence_requests
    assert request.label == "Did “Restart a crash-looping deployment” work?"
    assert request.guidance.commands[0] == (
        "kubectl rollout status deployment/payments-api -n payments --timeout=10s"
    )
    assert "Did “Restart a crash-looping deployment” work?" in text_of(bot.thread(thread_ts)[1])
    audit = await bot.runtime.repositories.audit.list_for_case(case.case_id)
    [entry] = [e for e in audit if e.action == "workflow.approved"]
    assert entry.actor == SRE
    assert entry.source == "slack:button"
    assert entry.detail["workflow_id"] == RESTART
    assert entry.detail["version"] == "1.0.0"
    assert entry.detail["parameters"] == PARAMETERS[RESTART]
    assert entry.detail["executor"] == "none"
    assert "workflow.execution_handed_over" in [e.action for e in audit]
    budget.check(thread_ts)


async def test_rejecting_a_strategy_leaves_the_others_to_decide(bot: BotHarness) -> None:
    thread_ts = await alert_case(bot)
    await join(bot, thread_ts)
    first, _ = with_strategy_buttons(bot, thread_ts)

    await decide(bot, first, "reject")

    rejected, open_one = await strategies_of(bot, thread_ts)
    assert rejected.status is StrategyStatus.REJECTED
    assert rejected.execution is None
    assert open_one.status is StrategyStatus.PROPOSED
    assert len(with_strategy_buttons(bot, thread_ts)) == 1
    assert f"Rejected by <@{SRE}>" in thread_text(bot, thread_ts)
    case = await bot.case(thread_ts)
    assert case.evidence_requests == []
    audit = await bot.runtime.repositories.audit.list_for_case(case.case_id)
    assert [e.detail["workflow_id"] for e in audit if e.action == "workflow.rejected"] == [RESTART]


async def test_the_paged_on_call_in_the_alert_channel_approves_without_writing_first(
    bot: BotHarness, slack: FakeSlack
) -> None:
    slack.workspace.members[CHANNEL] = [BOT_USER_ID, "W100", SRE]
    thread_ts = await alert_case(bot)
    first, _ = with_strategy_buttons(bot, thread_ts)

    await decide(bot, first, "approve")

    approved, _ = await strategies_of(bot, thread_ts)
    assert approved.status is StrategyStatus.EXECUTED
    assert approved.decided_by == SRE
    assert slack.ephemerals(user=SRE) == []
    assert slack.calls_to("conversations.members", ok=True)[0]["channel"] == CHANNEL
    assert SRE in (await bot.case(thread_ts)).participants, "approving joined the case"


async def test_someone_outside_the_alert_channel_is_told_to_join_it_then_may_approve(
    bot: BotHarness, slack: FakeSlack
) -> None:
    slack.workspace.members[CHANNEL] = [BOT_USER_ID, SRE]
    thread_ts = await alert_case(bot)
    first, _ = with_strategy_buttons(bot, thread_ts)

    await decide(bot, first, "approve", user=OUTSIDER)

    assert [s.status for s in await strategies_of(bot, thread_ts)] == [StrategyStatus.PROPOSED] * 2
    [whisper] = slack.ephemerals(user=OUTSIDER)
    assert whisper["text"] == (
        f"Only members of <#{CHANNEL}>, where the alert was posted, can approve or reject this "
        "workflow: join the channel, then click again."
    )
    assert len(with_strategy_buttons(bot, thread_ts)) == 2
    slack.workspace.members[CHANNEL].append(OUTSIDER)  # within the minute the list is kept

    await decide(bot, first, "approve", user=OUTSIDER)

    assert (await strategies_of(bot, thread_ts))[0].decided_by == OUTSIDER
    assert len(slack.ephemerals(user=OUTSIDER)) == 1


async def test_with_alert_responders_only_their_members_approve_and_others_are_told_who(
    slack: FakeSlack, llm: FakeLLMServer, tmp_path: Path
) -> None:
    slack.workspace.usergroups["S0ONCALL"] = [SRE]
    slack.workspace.members[CHANNEL] = [BOT_USER_ID, SRE, "W444"]
    harness = await alert_bot(slack, llm, tmp_path, env={"FM_ALERT_RESPONDERS": "S0ONCALL"})
    try:
        thread_ts = await alert_case(harness)
        first, _ = with_strategy_buttons(harness, thread_ts)
        await decide(harness, first, "approve", user="W444")
        refused = [s.status for s in await strategies_of(harness, thread_ts)]
        await decide(harness, first, "approve")
        approved = (await strategies_of(harness, thread_ts))[0]
    finally:
        await harness.stop()

    assert refused == [StrategyStatus.PROPOSED] * 2, "a channel member outside the group"
    [whisper] = slack.ephemerals(user="W444")
    assert whisper["text"] == (
        "Only members of <!subteam^S0ONCALL> (the alert's responders) can approve or reject "
        "this workflow."
    )
    assert approved.status is StrategyStatus.EXECUTED
    assert approved.decided_by == SRE
    assert slack.calls_to("conversations.members") == [], "the group, not the channel"


async def test_the_confirmers_group_is_the_stronger_rule(
    slack: FakeSlack, llm: FakeLLMServer, tmp_path: Path
) -> None:
    slack.workspace.usergroups.update({"S0LEADS": ["W555"], "S0ONCALL": [SRE]})
    harness = await alert_bot(
        slack,
        llm,
        tmp_path,
        env={"FM_ALERT_RESPONDERS": "S0ONCALL"},
        confirmers_usergroup="S0LEADS",
    )
    try:
        thread_ts = await alert_case(harness)
        first, _ = with_strategy_buttons(harness, thread_ts)
        await decide(harness, first, "approve")
        await decide(harness, first, "approve", user="W555")
        approved = (await strategies_of(harness, thread_ts))[0]
    finally:
        await harness.stop()

    [whisper] = slack.ephemerals(user=SRE)
    assert "Only members of <!subteam^S0LEADS> can approve or reject" in text_of(whisper)
    assert approved.decided_by == "W555"


async def test_without_reading_the_channel_the_people_in_the_thread_decide(
    bot: BotHarness, slack: FakeSlack
) -> None:
    # An app installed before the manifest asked for channels:read.
    slack.workspace.scopes = {"chat:write", "channels:history", "usergroups:read"}
    thread_ts = await alert_case(bot)
    first, _ = with_strategy_buttons(bot, thread_ts)

    await decide(bot, first, "approve")
    [whisper] = slack.ephemerals(user=SRE)
    await join(bot, thread_ts)
    await decide(bot, first, "approve")

    assert "write in this thread to join it, then click again" in text_of(whisper)
    assert (await strategies_of(bot, thread_ts))[0].status is StrategyStatus.EXECUTED
    assert slack.calls_to("conversations.members", ok=False) != []


async def test_members_of_the_confirmers_group_may_approve_without_writing_first(
    slack: FakeSlack, llm: FakeLLMServer, tmp_path: Path
) -> None:
    slack.workspace.usergroups["S0ONCALL"] = [SRE]
    harness = await alert_bot(slack, llm, tmp_path, confirmers_usergroup="S0ONCALL")
    try:
        thread_ts = await alert_case(harness)
        first, _ = with_strategy_buttons(harness, thread_ts)
        await decide(harness, first, "approve")
        approved = (await strategies_of(harness, thread_ts))[0]
    finally:
        await harness.stop()

    assert approved.status is StrategyStatus.EXECUTED


async def test_a_second_click_on_a_decided_strategy_changes_nothing(
    bot: BotHarness, slack: FakeSlack
) -> None:
    thread_ts = await alert_case(bot)
    await join(bot, thread_ts)
    first, _ = with_strategy_buttons(bot, thread_ts)

    await decide(bot, first, "approve")
    await decide(bot, first, "reject")

    assert (await strategies_of(bot, thread_ts))[0].status is StrategyStatus.EXECUTED
    assert "already decided on that workflow (executed)" in text_of(slack.ephemerals(user=SRE)[-1])
    case = await bot.case(thread_ts)
    assert len(case.evidence_requests) == 1


async def test_the_alert_case_continues_as_a_normal_case(bot: BotHarness) -> None:
    thread_ts = await alert_case(bot)

    await bot.reply(thread_ts, "logs say: connection refused to db:5432", chat_reply("Noted."))

    case = await bot.case(thread_ts)
    assert case.current_turn == 1
    assert "logs say" in bot.llm_prompts()
    turn_prompt = bot.llm.requests[-1]["messages"]
    history = "\n".join(m["content"] for m in turn_prompt)
    assert "Alert firing: KubePodCrashLooping" in history, "the alert is the case's first message"
    assert "Root cause: Connections to the database broke" in history, "the analysis follows"
    assert "Offered for approval: Restart a crash-looping deployment" in history


async def test_a_finished_case_takes_no_approval(bot: BotHarness, slack: FakeSlack) -> None:
    thread_ts = await alert_case(bot)
    await join(bot, thread_ts)
    first, _ = with_strategy_buttons(bot, thread_ts)
    await close_case(bot, thread_ts)

    await decide(bot, first, "approve")

    assert (await strategies_of(bot, thread_ts))[0].status is StrategyStatus.PROPOSED
    assert "This case is finished" in text_of(slack.ephemerals(user=SRE)[-1])


async def test_an_analysis_too_long_to_share_the_summary_is_a_message_of_its_own(
    bot: BotHarness,
) -> None:
    said = "The pods lost their database connections during the failover and never retried. "
    long = [f"{n}. {said * 3}" for n in range(1, 13)]
    bot.llm.script(
        *analysis(
            strategy(RESTART),
            strategy(ROLLBACK, confidence=0.5),
            contributing_factors=long,
            warnings=long,
        )
    )
    await post_alert(bot, crash_looping())
    await bot.settle(expect=2)
    thread_ts = str(alert_messages(bot)[0]["ts"])
    summary, analysed = bot.bot_messages(thread_ts)[1:]
    assert "Root-cause analysis" not in text_of(summary), "the summary keeps its room to grow"
    assert "Root-cause analysis" in text_of(analysed)
    first, _ = with_strategy_buttons(bot, thread_ts)

    await join(bot, thread_ts)
    await decide(bot, first, "approve")

    assert with_strategy_buttons(bot, thread_ts) == []
    assert f"Approved by <@{SRE}>" in text_of(bot.thread(thread_ts)[2])
    assert "Root-cause analysis" not in text_of(bot.thread(thread_ts)[1])
