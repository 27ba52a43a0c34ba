"""Approve / Reject through Slack buttons: who may decide, the audit, executors, evidence after."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from domain.workflows.remediation import StrategyStatus
from domain.workflows.validation import Rule
from tests.alerts import crash_looping
from tests.fakes.models.llm_server import FakeLLMServer
from tests.fakes.slack.server import FakeSlack
from tests.fakes.slack.state import BOT_USER_ID
from tests.fakes.webhook import FakeAutomation
from tests.integration.bot.alerts.alert_harness import (
    alert_bot,
    alert_messages,
    analysis,
    close_case,
    post_alert,
    thread_text,
    with_strategy_buttons,
)
from tests.integration.bot.harness import CHANNEL, SRE, BotHarness, JsonDict, buttons, text_of
from tests.integration.bot.replies import chat_reply
from tests.unit.domain.workflows.catalog_data import (
    DISK,
    DRAIN,
    HPA,
    PARAMETERS,
    RESTART,
    ROLLBACK,
    strategy,
)

OUTSIDER = "W999"


@pytest.fixture
async def bot(slack: FakeSlack, llm: FakeLLMServer, tmp_path: Path) -> AsyncIterator[BotHarness]:
    harness = await alert_bot(slack, llm, tmp_path)
    try:
        yield harness
    finally:
        await harness.stop()


async def alert_case(bot: BotHarness, *strategies: dict[str, Any]) -> str:
    """The crash-looping alert opens its case with these strategies; return the thread ts."""
    chosen = strategies or (strategy(RESTART), strategy(ROLLBACK, confidence=0.5))
    bot.llm.script(*analysis(*chosen))
    await post_alert(bot, crash_looping())
    await bot.settle(expect=2)
    return str(alert_messages(bot)[0]["ts"])


async def join(bot: BotHarness, thread_ts: str, user: str = SRE) -> None:
    """Someone writes in the thread (a turn), which makes them a participant."""
    await bot.reply(thread_ts, "I'm on it, looking at the pods", chat_reply("Thanks."), user=user)


async def decide(
    bot: BotHarness, message: JsonDict, decision: str, *, user: str = SRE, settle: bool = True
) -> int:
    button = next(b for b in buttons(message) if b["action_id"].startswith(f"fm_{decision}"))
    request = bot.slack.payloads.block_action(
        button["action_id"],
        button["value"],
        message=message,
        channel=message_channel(bot),
        user=user,
    )
    status, _ = await bot.send(request)
    if settle:
        await bot.settle()
    return status


def message_channel(bot: BotHarness) -> str:
    return str(bot.runtime.settings.alert_channel)


async def strategies_of(bot: BotHarness, thread_ts: str) -> list[Any]:
    case = await bot.case(thread_ts)
    return await bot.runtime.repositories.remediations.list_for_case(case.case_id)


async def test_approval_hands_the_steps_to_people_audits_it_and_asks_for_evidence(
    bot: BotHarness,
) -> None:
    thread_ts = await alert_case(bot)
    await join(bot, thread_ts)
    first, _ = with_strategy_buttons(bot, thread_ts)

    status = await decide(bot, first, "approve")

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


def parameters(base: str, **changes: Any) -> dict[str, Any]:
    values = {**PARAMETERS[base], **changes}
    return {name: value for name, value in values.items() if value is not None}


# For the crash-looping alert (production, P1, medium risk tolerance) the catalog search offers
# the newest versions of restart, rollback, HPA, memory and disk: not the node drain (high risk).
BROKEN: list[tuple[Rule, dict[str, Any] | None, str]] = [
    (Rule.STRATEGIES_REQUIRED, None, "no strategies: at least one is required"),
    (Rule.RATIONALE_REQUIRED, strategy(rationale=" "), "rationale is empty"),
    (
        Rule.WORKFLOW_EXISTS,
        strategy(DRAIN),
        "workflow 'cordon-drain-node' is not one of the workflows offered",
    ),
    (
        Rule.VERSION_MATCHES,
        strategy(ROLLBACK, version="1.0.0"),
        "version '1.0.0' of rollback-deployment was not offered (offered: 1.1.0)",
    ),
    (Rule.CONFIDENCE_RANGE, strategy(confidence=1.7), "confidence 1.7 is outside 0.0–1.0"),
    (Rule.RISK_LEVEL, strategy(estimated_risk="severe"), "'severe' is not low, medium or high"),
    (
        Rule.PARAMETER_REQUIRED,
        strategy(parameters=parameters(RESTART, TARGET_DEPLOYMENT=None)),
        "required parameter TARGET_DEPLOYMENT is missing",
    ),
    (
        Rule.PARAMETER_NAME,
        strategy(parameters={**PARAMETERS[RESTART], "Target_Namespace": "payments"}),
        "Target_Namespace is not a parameter of restart-crashlooping-deployment",
    ),
    (
        Rule.PARAMETER_TYPE,
        strategy(HPA, parameters=parameters(HPA, MIN_REPLICAS="6")),
        "MIN_REPLICAS: expected integer, got string '6'",
    ),
    (
        Rule.PARAMETER_ENUM,
        strategy(DISK, parameters=parameters(DISK, JOURNAL_MAX_SIZE="50G")),
        "JOURNAL_MAX_SIZE: '50G' is not one of the allowed values",
    ),
    (
        Rule.PARAMETER_RANGE,
        strategy(HPA, parameters=parameters(HPA, MAX_REPLICAS=500)),
        "MAX_REPLICAS: 500 is above the maximum 100",
    ),
    (
        Rule.PARAMETER_PATTERN,
        strategy(parameters=parameters(RESTART, TARGET_NAMESPACE="Payments_Prod")),
        "TARGET_NAMESPACE: 'Payments_Prod' does not match the pattern",
    ),
]


def test_every_rule_of_the_seed_is_broken_once_end_to_end() -> None:
    # PARAMETER_SAFE is the system's own rule on top of the seed's: unit-tested, since every
    # string parameter of the test catalog has a pattern that already refuses such values.
    assert {rule for rule, _, _ in BROKEN} == set(Rule) - {Rule.PARAMETER_SAFE}


@pytest.mark.parametrize(
    ("broken", "problem"), [pytest.param(s, p, id=r.value) for r, s, p in BROKEN]
)
async def test_a_reply_that_breaks_a_rule_is_shown_as_rca_only_logged_and_offers_nothing(
    bot: BotHarness,
    caplog: pytest.LogCaptureFixture,
    broken: dict[str, Any] | None,
    problem: str,
) -> None:
    bot.llm.script(*analysis(*([broken] if broken else [])))

    with caplog.at_level(logging.WARNING, logger="domain.workflows.planner"):
        await post_alert(bot, crash_looping())
        await bot.settle(expect=2)

    thread_ts = str(alert_messages(bot)[0]["ts"])
    thread = thread_text(bot, thread_ts)
    assert with_strategy_buttons(bot, thread_ts) == []
    assert "Root-cause analysis" in thread
    assert "No workflow offered" in thread
    assert problem in thread
    assert await strategies_of(bot, thread_ts) == []
    logged = [r for r in caplog.records if "failed validation" in r.message]
    assert any(problem in p for r in logged for p in r.problems)  # type: ignore[attr-defined]
    case = await bot.case(thread_ts)
    [entry] = [
        e
        for e in await bot.runtime.repositories.audit.list_for_case(case.case_id)
        if e.action == "workflow.analysed"
    ]
    assert entry.detail["outcome"] == "rca_only"
    assert any(problem in p for p in entry.detail["problems"])
    assert entry.detail["reply"].startswith('{"analysis_summary"'), "the original reply is kept"


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


@pytest.fixture
async def automation() -> AsyncIterator[FakeAutomation]:
    async with FakeAutomation() as hook:
        yield hook


async def webhook_bot(slack: FakeSlack, llm: FakeLLMServer, tmp_path: Path, url: str) -> BotHarness:
    env = {
        "FM_WORKFLOW_EXECUTOR": "webhook",
        "FM_WORKFLOW_WEBHOOK_URL": url,
        "FM_WORKFLOW_WEBHOOK_TOKEN": "automation-secret",
    }
    return await alert_bot(slack, llm, tmp_path, env=env)


async def approve_first_strategy(harness: BotHarness) -> str:
    """An alert case whose responder approves the first strategy; its thread ts."""
    thread_ts = await alert_case(harness)
    await join(harness, thread_ts)
    await decide(harness, with_strategy_buttons(harness, thread_ts)[0], "approve")
    return thread_ts


async def test_the_webhook_executor_posts_the_approved_workflow_and_reports_the_answer(
    slack: FakeSlack, llm: FakeLLMServer, tmp_path: Path, automation: FakeAutomation
) -> None:
    harness = await webhook_bot(slack, llm, tmp_path, automation.url)
    try:
        thread_ts = await approve_first_strategy(harness)
        thread = thread_text(harness, thread_ts)
        case = await harness.case(thread_ts)
    finally:
        await harness.stop()

    [received] = automation.received
    assert received.headers["Authorization"] == "Bearer automation-secret"
    assert received.body["workflow_id"] == RESTART
    assert received.body["parameters"] == PARAMETERS[RESTART]
    assert received.body["approved_by"] == SRE
    assert received.body["case_id"] == case.case_id
    assert "sent to the automation endpoint: it answered HTTP 202" in thread
    assert "run-42" in thread
    assert len(case.evidence_requests) == 1


async def test_a_failing_webhook_is_reported_and_asks_for_no_evidence(
    slack: FakeSlack, llm: FakeLLMServer, tmp_path: Path, automation: FakeAutomation
) -> None:
    automation.status, automation.answer = 500, '{"error": "runner offline"}'
    harness = await webhook_bot(slack, llm, tmp_path, automation.url)
    try:
        thread_ts = await approve_first_strategy(harness)
        thread = thread_text(harness, thread_ts)
        case = await harness.case(thread_ts)
        [failed, _] = await strategies_of(harness, thread_ts)
    finally:
        await harness.stop()

    assert "did not run: the automation endpoint answered HTTP 500" in thread
    assert "runner offline" in thread
    assert failed.status is StrategyStatus.FAILED
    assert case.evidence_requests == []


async def test_a_finished_case_takes_no_approval(bot: BotHarness, slack: FakeSlack) -> None:
    thread_ts = await alert_case(bot)
    await join(bot, thread_ts)
    first, _ = with_strategy_buttons(bot, thread_ts)
    await close_case(bot, thread_ts)

    await decide(bot, first, "approve")

    assert (await strategies_of(bot, thread_ts))[0].status is StrategyStatus.PROPOSED
    assert "This case is finished" in text_of(slack.ephemerals(user=SRE)[-1])
