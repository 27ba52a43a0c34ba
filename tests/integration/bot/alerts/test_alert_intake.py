"""Alertmanager notifications end to end: one group, one case; resolved in the thread; refusals."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from dataclasses import replace
from pathlib import Path

import pytest

from domain.workflows.signals import SignalStatus
from tests.alerts import (
    LARGE,
    NO_COMMON_SUMMARY,
    SINGLE,
    TWELVE,
    TWO,
    crash_looping,
    resolved,
    sample,
    sample_bytes,
)
from tests.fakes.models.llm_server import FakeLLMServer, reply
from tests.fakes.slack.server import FakeSlack
from tests.fakes.slack.state import TEAM_ID
from tests.integration.bot.alerts.alert_harness import (
    ALERT_TOKEN,
    alert_bot,
    alert_messages,
    analysis,
    close_case,
    post_alert,
    thread_text,
    with_strategy_buttons,
)
from tests.integration.bot.harness import BotHarness, eventually, text_of
from tests.unit.domain.workflows.catalog_data import RESTART, ROLLBACK, findings, strategy


@pytest.fixture
async def bot(slack: FakeSlack, llm: FakeLLMServer, tmp_path: Path) -> AsyncIterator[BotHarness]:
    harness = await alert_bot(slack, llm, tmp_path)
    try:
        yield harness
    finally:
        await harness.stop()


@pytest.fixture
async def plain(slack: FakeSlack, llm: FakeLLMServer, tmp_path: Path) -> AsyncIterator[BotHarness]:
    """No workflow catalog: an alert gets its analysis only (one model call)."""
    harness = await alert_bot(slack, llm, tmp_path, catalog=False)
    try:
        yield harness
    finally:
        await harness.stop()


async def open_alert(bot: BotHarness) -> str:
    """The crash-looping alert opens its case; return the thread ts."""
    bot.llm.script(*analysis(strategy(RESTART), strategy(ROLLBACK, confidence=0.5)))
    status, answer = await post_alert(bot, crash_looping())
    assert (status, answer["status"]) == (200, "accepted")
    await bot.settle(expect=2)
    [alert] = alert_messages(bot)
    return str(alert["ts"])


async def test_a_firing_alert_opens_a_case_with_its_analysis_and_strategies(
    bot: BotHarness,
) -> None:
    thread_ts = await open_alert(bot)

    case = await bot.case(thread_ts)
    texts = [text_of(m) for m in bot.thread(thread_ts)]
    assert case.title == "KubePodCrashLooping: Pod is crash looping."
    assert case.user_id == "alertmanager"
    assert "Firing: KubePodCrashLooping" in texts[0], "the alert itself is the thread's parent"
    assert case.short_id in texts[1], "then the case summary"
    assert "Root-cause analysis" in texts[1], "with the analysis under it"
    assert len(texts) == 2, "the analysis offers its workflows in the same message"
    assert len(with_strategy_buttons(bot, thread_ts)) == 2
    assert "kubectl rollout restart deployment/payments-api -n payments" in texts[1]
    assert len(bot.llm.requests) == 2
    actions = [e.action for e in await bot.runtime.repositories.audit.list_for_case(case.case_id)]
    assert "case.opened_by_alert" in actions
    assert "workflow.analysed" in actions


async def test_the_model_sees_observable_facts_and_never_the_rules_runbook(bot: BotHarness) -> None:
    await open_alert(bot)

    first, second = bot.llm.requests
    prompt = "\n".join(m["content"] for m in first["messages"])
    assert "KubePodCrashLooping" in prompt
    assert "payments/Pod/payments-api-7d9f8-x2k4q" in prompt
    assert "runbook" not in prompt.lower()
    assert "Workflows found" not in prompt
    assert "Workflows found" in "\n".join(m["content"] for m in second["messages"])


async def test_secrets_in_an_alert_reach_neither_the_model_nor_the_channel(
    plain: BotHarness,
) -> None:
    """A probe URL with its password, a token quoted in a description: redacted on arrival."""
    payload = crash_looping()
    probe = "https://monitor:Pr0be-Pa55@payments.internal/health"
    payload["commonLabels"]["instance"] = probe
    payload["alerts"][0]["labels"]["instance"] = probe
    description = "Auth to the registry failed with token glpat-Ab3dEf6hIj9kLmNoPqRs; pod restarts."
    payload["commonAnnotations"]["description"] = description
    payload["alerts"][0]["annotations"]["description"] = description
    plain.llm.script(*analysis())

    status, _ = await post_alert(plain, payload)
    await plain.settle()

    assert status == 200
    seen = plain.llm_prompts() + json.dumps(plain.slack.calls)
    for secret in ("Pr0be-Pa55", "glpat-Ab3dEf6hIj9kLmNoPqRs"):
        assert secret not in seen
        assert secret not in json.dumps([item.payload for item in plain.recorded])
    assert "payments.internal/health" in plain.llm_prompts()
    assert "Auth to the registry failed" in plain.llm_prompts()


async def test_repeated_notifications_update_the_same_case(bot: BotHarness) -> None:
    thread_ts = await open_alert(bot)

    for _ in range(2):
        status, _ = await post_alert(bot, crash_looping())
        assert status == 200
        await bot.settle()

    [alert] = alert_messages(bot)
    assert "notified 3×" in text_of(alert)
    assert len(with_strategy_buttons(bot, thread_ts)) == 2, "no second analysis"
    assert len(bot.llm.requests) == 2
    cases = await bot.runtime.repositories.cases.list_cases(TEAM_ID, open_only=False)
    assert len(cases) == 1


async def test_duplicate_notifications_arriving_together_open_one_case(bot: BotHarness) -> None:
    bot.llm.script(*analysis(strategy(RESTART)))

    answers = await asyncio.gather(*(post_alert(bot, crash_looping()) for _ in range(5)))
    await bot.settle(expect=6)

    assert {status for status, _ in answers} == {200}
    assert len(alert_messages(bot)) == 1
    cases = await bot.runtime.repositories.cases.list_cases(TEAM_ID, open_only=False)
    assert len(cases) == 1
    assert "notified 5×" in text_of(alert_messages(bot)[0])
    assert len(bot.llm.requests) == 2


async def test_a_resolved_notification_is_posted_in_the_case_thread(bot: BotHarness) -> None:
    thread_ts = await open_alert(bot)

    status, _ = await post_alert(bot, resolved(crash_looping()))
    await bot.settle()

    assert status == 200
    assert "Alert resolved" in thread_text(bot, thread_ts)
    assert "Resolved: KubePodCrashLooping" in text_of(alert_messages(bot)[0])
    case = await bot.case(thread_ts)
    assert not case.is_terminal, "only a person resolves a case"
    group = await bot.runtime.repositories.alert_groups.for_case(case.case_id)
    assert group is not None
    assert group.status is SignalStatus.RESOLVED


async def test_a_resolved_notification_of_an_unknown_group_opens_nothing(plain: BotHarness) -> None:
    status, _ = await post_alert(plain, resolved(sample(TWO)))
    await plain.settle()

    assert status == 200
    assert alert_messages(plain) == []


async def test_a_real_single_alert_without_optional_fields_opens_a_case(plain: BotHarness) -> None:
    plain.llm.script(reply(findings(signal_type="HostHighMemory", rca_severity="low")))

    status, _ = await post_alert(plain, sample_bytes(SINGLE))
    await plain.settle(expect=2)

    assert status == 200
    [alert] = alert_messages(plain)
    thread = thread_text(plain, str(alert["ts"]))
    assert "high_memory_load: Server High Memory usage" in text_of(alert)
    assert "Root-cause analysis" in thread
    assert "FM_WORKFLOW_CATALOG_DIR" in thread, "no catalog, so no workflow"
    assert len(plain.llm.requests) == 1


@pytest.mark.parametrize("name", [TWELVE, LARGE, NO_COMMON_SUMMARY])
async def test_real_grouped_notifications_open_one_case_each(plain: BotHarness, name: str) -> None:
    plain.llm.script(reply(findings()))

    status, answer = await post_alert(plain, sample_bytes(name))
    await plain.settle(expect=2)

    assert status == 200
    assert answer["alerts"] == len(sample(name)["alerts"])  # type: ignore[arg-type]
    [alert] = alert_messages(plain)
    case = await plain.case(str(alert["ts"]))
    assert case.title


async def test_alerts_joining_a_group_are_said_in_the_thread(plain: BotHarness) -> None:
    plain.llm.script(reply(findings()))
    await post_alert(plain, sample(TWO))
    await plain.settle(expect=2)

    await post_alert(plain, sample(TWELVE))
    await plain.settle()

    [alert] = alert_messages(plain)
    assert "10 more alert(s) joined" in thread_text(plain, str(alert["ts"]))
    assert "12 of 12 firing" in text_of(alert)


@pytest.mark.parametrize(
    ("token", "scheme"),
    [(None, "Bearer"), ("wrong-token-wrong-token", "Bearer"), (ALERT_TOKEN, "Basic")],
)
async def test_a_missing_or_wrong_bearer_token_is_refused(
    plain: BotHarness, token: str | None, scheme: str
) -> None:
    status, answer = await post_alert(plain, crash_looping(), token=token, scheme=scheme)

    assert status == 401
    assert answer == {"error": "missing or wrong bearer token"}
    assert plain.recorded == []


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        (b"not json", "the body is not JSON"),
        (b'{"status": "firing", "alerts": []}', "alerts: List should have at least 1 item"),
        (b'{"alerts": [{"labels": {}}]}', "status: Field required"),
    ],
)
async def test_a_malformed_payload_gets_400_with_the_reason(
    plain: BotHarness, body: bytes, reason: str
) -> None:
    status, answer = await post_alert(plain, body)

    assert status == 400
    assert reason in answer["error"]
    assert plain.recorded == []


async def test_an_oversized_payload_is_refused(plain: BotHarness) -> None:
    status, _ = await post_alert(plain, b"{" + b" " * (1024 * 1024 + 1) + b"}")

    assert status == 413


async def test_without_an_alert_token_the_endpoint_is_off(
    slack: FakeSlack, llm: FakeLLMServer, tmp_path: Path
) -> None:
    from tests.fakes.knowledge import FakeKnowledge

    harness = await BotHarness.start(slack, llm, tmp_path, knowledge=FakeKnowledge())
    try:
        status, answer = await post_alert(harness, crash_looping())
    finally:
        await harness.stop()

    assert status == 503
    assert "FM_ALERT_TOKEN" in answer["error"]


async def test_an_alert_is_not_lost_while_slack_is_briefly_unavailable(
    bot: BotHarness, slack: FakeSlack
) -> None:
    slack.fail_next("chat.postMessage", status=503, times=2)
    bot.llm.script(*analysis(strategy(RESTART)))

    status, _ = await post_alert(bot, crash_looping())
    await eventually(lambda: len(alert_messages(bot)) == 1, seconds=10)
    await eventually(lambda: len(bot.llm.requests) == 2, seconds=10)
    await bot.settle(expect=0)
    await eventually(
        lambda: bool(with_strategy_buttons(bot, str(alert_messages(bot)[0]["ts"]))), seconds=10
    )

    assert status == 200
    assert len(slack.calls_to("chat.postMessage", ok=False)) == 2
    [alert] = alert_messages(bot)
    assert "notified" not in text_of(alert), "the retries counted the notification once"


async def test_the_alert_endpoint_runs_in_socket_mode(
    slack: FakeSlack, llm: FakeLLMServer, tmp_path: Path
) -> None:
    harness = await alert_bot(slack, llm, tmp_path, catalog=False, socket_mode=True)
    try:
        await slack.socket_mode.wait_connected()
        harness.llm.script(reply(findings()))
        status, _ = await post_alert(harness, crash_looping())
        await harness.settle(expect=2)
        opened = alert_messages(harness)
    finally:
        await harness.stop()

    assert harness.server.socket is not None, "Socket Mode, yet the alert was taken over HTTP"
    assert status == 200
    assert len(opened) == 1


async def test_a_deleted_alert_message_does_not_stop_the_thread_hearing_of_changes(
    bot: BotHarness, slack: FakeSlack
) -> None:
    thread_ts = await open_alert(bot)
    slack.fail_next("chat.update", error="message_not_found")

    await post_alert(bot, resolved(crash_looping()))
    await bot.settle()

    assert "Alert resolved" in thread_text(bot, thread_ts)


async def test_an_analysis_cut_short_by_slack_is_finished_by_its_retry(
    bot: BotHarness, slack: FakeSlack
) -> None:
    found, strategies = analysis(strategy(RESTART))
    bot.llm.script(replace(found, delay_s=1.0), strategies, *analysis(strategy(RESTART)))

    await post_alert(bot, crash_looping())
    await slack.wait_for("chat.postMessage", 2)  # the alert and its case summary
    slack.fail_next("chat.update", status=500)  # Slack fails drawing the analysis in
    await bot.settle(expect=0)
    thread_ts = str(alert_messages(bot)[0]["ts"])
    await eventually(lambda: bool(with_strategy_buttons(bot, thread_ts)), seconds=10)

    texts = [text_of(m) for m in bot.thread(thread_ts)]
    # Drawn in by an edit, which leaves a status line up: the work takes it down once done.
    await eventually(lambda: thread_ts not in {key[1] for key in slack.workspace.statuses})
    (refused,) = slack.calls_to("chat.update", ok=False)
    assert "Root-cause analysis" in json.dumps(refused["blocks"])
    assert sum("Root-cause analysis" in t for t in texts) == 1


async def test_a_group_firing_again_after_its_case_closed_opens_a_new_case(
    bot: BotHarness,
) -> None:
    first = await open_alert(bot)
    await close_case(bot, first)

    await post_alert(bot, resolved(crash_looping()))
    await bot.settle()
    bot.llm.script(*analysis(strategy(RESTART)))
    await post_alert(bot, crash_looping())
    await bot.settle(expect=2)

    assert "Alert resolved" in thread_text(bot, first), "the finished case still hears it"
    alerts = alert_messages(bot)
    assert len(alerts) == 2
    second = str(alerts[-1]["ts"])
    assert second != first
    assert not (await bot.case(second)).is_terminal
    assert len(with_strategy_buttons(bot, second)) == 1
    cases = await bot.runtime.repositories.cases.list_cases(TEAM_ID, open_only=False)
    assert len(cases) == 2
