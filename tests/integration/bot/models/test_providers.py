"""Whole investigations and alert analyses against each provider's fake, through the Slack fakes.

Each fake refuses what its provider refuses (strict schema rules, tool and output-format limits,
JSON mode only), so these pass only if every reply schema and every free-text call the bot makes
would pass the real provider: open → confirm → evidence and root cause → resolve → report and
runbook → `/fm score`, and an alert analysis whose workflow choice is offered for approval.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from domain.lifecycle.status import CaseStatus
from domain.llm import LLMCallOutcome
from domain.scoring.model import ScoringStatus
from tests.alerts import crash_looping
from tests.fakes.models.anthropic_server import FakeAnthropic
from tests.fakes.models.json_mode_server import FakeJsonModeServer
from tests.fakes.models.llm_server import FakeLLMServer, ScriptedModelServer, reply
from tests.fakes.models.ollama_server import FakeOllama
from tests.fakes.slack.server import FakeSlack
from tests.integration.bot.alerts.alert_harness import (
    alert_bot,
    alert_messages,
    analysis,
    post_alert,
    with_strategy_buttons,
)
from tests.integration.bot.harness import BotHarness, text_of, with_buttons
from tests.integration.bot.incident_replies import second_look_reply
from tests.integration.bot.replies import STATEMENT, statement_reply
from tests.integration.bot.scoring.scoring_steps import fm, judge, latest_scoring
from tests.integration.engine.thread import json_reply
from tests.unit.domain.workflows.catalog_data import RESTART, strategy


class FakeAnthropicNative(FakeAnthropic):
    """A Claude model with native structured output: litellm sends ``output_format``."""

    model_name = "claude-sonnet-4-5"


PROVIDERS = {
    "openai-strict": FakeLLMServer,
    "anthropic-tool": FakeAnthropic,
    "anthropic-native": FakeAnthropicNative,
    "ollama": FakeOllama,
    "json-mode-only": FakeJsonModeServer,
}
ERROR_WORDS = ("could not", "refused", "went wrong", "did not answer", "cut off", "failed")


@pytest.fixture(params=list(PROVIDERS))
async def provider(request: pytest.FixtureRequest) -> AsyncIterator[ScriptedModelServer]:
    async with PROVIDERS[request.param]() as server:
        yield server


@pytest.fixture
async def bot(
    slack: FakeSlack, provider: ScriptedModelServer, tmp_path: Path
) -> AsyncIterator[BotHarness]:
    harness = await alert_bot(slack, provider, tmp_path)
    try:
        yield harness
    finally:
        await harness.stop()


FINDINGS = {
    "ref": "E1",
    "summary": "HikariPool-1 timeouts after 30 s from 14:05, 2 minutes after deploy 4711",
    "analysis": "every 502 is a request that waited for a database connection",
}
ROOT_CAUSE = {
    "root_cause": "Deploy 4711 cut the database pool from 50 to 10 connections",
    "confidence_score": 0.85,
    "mechanism": "requests queue for the 10 connections and time out after 30 s",
    "evidence_basis": ["E1"],
}
ROLLBACK = {
    "solution_type": "rollback",
    "title": "Roll back deploy 4711",
    "is_mitigation": True,
    "immediate_action": "Roll checkout-api back to the previous release",
    "commands": ["kubectl rollout status deploy/checkout-api -n shop"],
}


def evidence_reply() -> object:
    return json_reply(
        "Every 502 is a request that timed out waiting for a database connection.",
        milestones={"symptom_verified": True, "root_cause_identified": True},
        evidence_to_add=[FINDINGS],
        root_cause_conclusion=ROOT_CAUSE,
        solutions_to_add=[ROLLBACK],
        outcome="milestone_completed",
    )


def resolve_reply() -> object:
    return json_reply(
        "Glad the rollback worked.",
        status_change_request={
            "to_status": "resolved",
            "reason": "the 502s stopped after the rollback",
            "resolution_summary": "Rolled back deploy 4711; the pool is back to 50",
        },
    )


def lessons_reply() -> object:
    return json_reply(
        "Noted for the runbook.",
        documentation_updates={"lessons_learned": ["Alert when the pool is over 80% busy"]},
    )


async def test_a_whole_investigation_completes_with_no_error_shown(
    bot: BotHarness, provider: ScriptedModelServer, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING)
    thread_ts = await bot.mention("checkout-api returns 502 since 14:05", statement_reply())
    (question,) = with_buttons(bot.bot_messages(thread_ts), "fm_answer")
    bot.llm.script(json_reply("Share the checkout-api log since 14:00."))  # the Yes moves on
    await bot.click(question, decision="yes")
    await bot.reply(
        thread_ts,
        "HikariPool-1 - Connection is not available, request timed out after 30000ms, since "
        "14:05; deploy 4711 went out at 14:03",
        evidence_reply(),
        second_look_reply(),
    )
    await bot.reply(thread_ts, "rolled back, the 502s are gone, mark it resolved", resolve_reply())
    resolve = with_buttons(bot.bot_messages(thread_ts), "fm_answer")[-1]
    # Resolving writes the case report and the runbook: no second question.
    bot.llm.script(reply("# Case report\n\nThe pool was cut."), reply("# Runbook\n\n1. Check."))
    await bot.click(resolve, decision="yes")
    await bot.reply(thread_ts, "lesson: alert when the pool is over 80% busy", lessons_reply())
    case = await bot.case(thread_ts)
    bot.llm.script(*judge())
    await fm(bot, f"score {case.short_id}", expect=2)

    case = await bot.case(thread_ts)
    assert case.status is CaseStatus.RESOLVED
    assert case.consulting.proposed_problem_statement == STATEMENT
    assert case.consulting.problem_statement_confirmed
    assert case.root_cause_conclusion is not None
    assert case.root_cause_conclusion.root_cause == ROOT_CAUSE["root_cause"]
    (shared,) = bot.slack.calls_to("files.completeUploadExternal")
    assert len(shared["files"]) == 2, "the report and the runbook in one message"
    assert case.documentation.lessons_learned == ["Alert when the pool is over 80% busy"]
    score = await latest_scoring(bot, thread_ts)
    assert (score.status, score.total_score) == (ScoringStatus.COMPLETED, 58)
    shown = "\n".join(text_of(m) for m in bot.bot_messages(thread_ts))
    assert not [word for word in ERROR_WORDS if word in shown], shown
    assert "fetch remote" not in caplog.text  # nothing downloaded at run time
    assert bot.slack.invalid_payloads == []
    _only_json_mode_steps_down(bot, provider, caplog)


async def test_an_alert_analysis_offers_the_workflow_it_chose(
    bot: BotHarness, provider: ScriptedModelServer, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING)
    bot.llm.script(*analysis(strategy(RESTART)))

    await post_alert(bot, crash_looping())
    await bot.settle(expect=2)

    thread_ts = str(alert_messages(bot)[0]["ts"])
    (offered,) = with_strategy_buttons(bot, thread_ts)
    assert "Restart a crash-looping deployment" in text_of(offered)
    shown = "\n".join(text_of(m) for m in bot.thread(thread_ts))
    assert not [word for word in ERROR_WORDS if word in shown], shown
    _only_json_mode_steps_down(bot, provider, caplog)


def _only_json_mode_steps_down(
    bot: BotHarness, provider: ScriptedModelServer, caplog: pytest.LogCaptureFixture
) -> None:
    """The JSON-mode-only server refuses the schema once; after that, and elsewhere, never."""
    records = bot.llm_calls.records
    refused = [r for r in records if r.outcome is LLMCallOutcome.SCHEMA_REFUSED]
    steps = [r for r in caplog.records if "asking it for" in r.getMessage()]
    if isinstance(provider, FakeJsonModeServer):
        assert len(refused) == 1
        (step,) = steps
        assert provider.model in step.getMessage()
        assert "This response_format type is unavailable now" in step.getMessage()
    else:
        assert (refused, steps) == ([], [])
    assert all(r.outcome in {LLMCallOutcome.OK, LLMCallOutcome.SCHEMA_REFUSED} for r in records)
