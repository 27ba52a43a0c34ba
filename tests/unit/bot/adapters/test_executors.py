"""Executors: `none` hands the steps to people; `webhook` POSTs the approval, reports the answer."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime

import pytest

from bot.adapters.executors import HumanExecutor, WebhookExecutor, build_executor
from bot.settings import load_settings
from domain.workflows.parameters import filled_steps
from domain.workflows.remediation import ExecutionRequest, ExecutionStatus
from tests.fakes.clock import FakeClock
from tests.fakes.webhook import FakeAutomation
from tests.unit.domain.workflows.catalog_data import HPA, PARAMETERS, workflow

APPROVED_AT = datetime(2026, 11, 21, 14, 25, tzinfo=UTC)


def request() -> ExecutionRequest:
    return ExecutionRequest(
        strategy_id="rem_000000000007",
        case_id="case_000000000001",
        team_id="T1",
        workflow=workflow(HPA),
        parameters=PARAMETERS[HPA],
        steps=filled_steps(workflow(HPA), PARAMETERS[HPA]),
        approved_by="W333",
        approved_at=APPROVED_AT,
    )


@pytest.fixture
async def hook() -> AsyncIterator[FakeAutomation]:
    async with FakeAutomation() as automation:
        yield automation


async def test_without_automation_the_exact_steps_go_to_people() -> None:
    result = await HumanExecutor(clock=FakeClock()).execute(request())

    assert result.executor == "none"
    assert result.status is ExecutionStatus.HANDED_OVER
    assert result.steps == request().steps


async def test_the_webhook_gets_the_workflow_parameters_and_approval(hook: FakeAutomation) -> None:
    executor = WebhookExecutor(url=hook.url, clock=FakeClock(), token="hook-secret")

    result = await executor.execute(request())

    assert result.status is ExecutionStatus.ACCEPTED
    assert result.http_status == 202
    assert result.response_excerpt == '{"run_id": "run-42", "state": "queued"}'
    [received] = hook.received
    assert received.headers["Authorization"] == "Bearer hook-secret"
    assert received.headers["Idempotency-Key"] == "rem_000000000007"
    assert received.body == {
        "strategy_id": "rem_000000000007",
        "case_id": "case_000000000001",
        "team_id": "T1",
        "workflow_id": HPA,
        "version": "1.0.0",
        "title": workflow(HPA).title,
        "parameters": PARAMETERS[HPA],
        "steps": request().steps,
        "approved_by": "W333",
        "approved_at": "2026-11-21T14:25:00+00:00",
    }


async def test_an_error_answer_is_reported_as_failed(hook: FakeAutomation) -> None:
    hook.status, hook.answer = 500, '{"error": "runner busy"}'

    result = await WebhookExecutor(url=hook.url, clock=FakeClock()).execute(request())

    assert result.status is ExecutionStatus.FAILED
    assert result.summary == "the automation endpoint answered HTTP 500"
    assert result.response_excerpt == '{"error": "runner busy"}'
    assert "Authorization" not in hook.received[0].headers


async def test_an_unreachable_endpoint_is_reported_not_raised() -> None:
    async with FakeAutomation() as gone:
        url = gone.url

    result = await WebhookExecutor(url=url, clock=FakeClock()).execute(request())

    assert result.status is ExecutionStatus.FAILED
    assert result.summary.startswith("the automation endpoint could not be reached")


async def test_a_slow_endpoint_times_out(hook: FakeAutomation) -> None:
    hook.delay_s = 1.0
    executor = WebhookExecutor(url=hook.url, clock=FakeClock(), timeout_s=0.2)

    result = await executor.execute(request())

    assert result.status is ExecutionStatus.FAILED
    assert result.summary == "the automation endpoint did not answer in time"


def test_the_setting_chooses_the_executor() -> None:
    none = load_settings({}, env_file=None)
    webhook = load_settings(
        {"FM_WORKFLOW_EXECUTOR": "webhook", "FM_WORKFLOW_WEBHOOK_URL": "http://127.0.0.1:9/h"},
        env_file=None,
    )

    assert build_executor(none, FakeClock()).name == "none"
    assert build_executor(webhook, FakeClock()).name == "webhook"
