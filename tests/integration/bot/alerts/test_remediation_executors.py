"""The webhook executor: the approved workflow posted to the automation endpoint, and its answer
or failure reported in the thread."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from domain.workflows.remediation import StrategyStatus
from tests.fakes.models.llm_server import FakeLLMServer
from tests.fakes.slack.server import FakeSlack
from tests.fakes.webhook import FakeAutomation
from tests.integration.bot.alerts.alert_harness import (
    alert_bot,
    thread_text,
    with_strategy_buttons,
)
from tests.integration.bot.alerts.remediation_harness import alert_case, decide, join, strategies_of
from tests.integration.bot.harness import SRE, BotHarness
from tests.unit.domain.workflows.catalog_data import (
    PARAMETERS,
    RESTART,
)


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
