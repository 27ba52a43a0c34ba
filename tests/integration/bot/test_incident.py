"""The checkout-api incident (the demo's and the transcript tests' scenario) runs end to end."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from domain.lifecycle.status import CaseStatus
from domain.llm import LLMCallOutcome
from tests.fakes.slack.server import FakeSlack
from tests.integration.bot.harness import text_of
from tests.integration.bot.incident import incident_bot, run_incident
from tests.integration.bot.incident_replies import CitingModelServer, resolve_citations
from tests.integration.bot.incident_story import LOG_PATH, STEPS, Step, StoryClock


@pytest.fixture
async def citing() -> AsyncIterator[CitingModelServer]:
    async with CitingModelServer() as server:
        yield server


async def test_the_incident_goes_from_mention_to_report_and_runbook_on_the_storys_clock(
    slack: FakeSlack, citing: CitingModelServer, tmp_path: Path
) -> None:
    clock = StoryClock()
    steps: list[Step] = []

    async def seen(step: Step) -> None:
        steps.append(step)

    async with incident_bot(slack, citing, tmp_path, clock=clock) as bot:
        thread_ts = await run_incident(bot, on_step=seen, clock=clock)
        case = await bot.case(thread_ts)
        shown = "\n".join(text_of(m) for m in bot.bot_messages(thread_ts))
        outcomes = {record.outcome for record in bot.llm_calls.records}

    assert case.status is CaseStatus.RESOLVED
    assert case.root_cause_conclusion is not None
    assert "from 50 to 10" in case.root_cause_conclusion.root_cause
    assert "checkout-api.log:" in shown, "the root cause cites lines of the uploaded log"
    (shared,) = slack.calls_to("files.completeUploadExternal")
    assert len(shared["files"]) == 2, "the report and the runbook in one message"
    assert outcomes == {LLMCallOutcome.OK}
    assert [s.name for s in steps if s in STEPS] == [s.name for s in STEPS]
    assert case.resolved_at is not None
    resolved_after = case.resolved_at - STEPS[0].moment(clock.day)
    assert timedelta(minutes=14) < resolved_after < timedelta(minutes=16)


def test_the_log_tells_the_story_the_bot_is_scripted_to_find() -> None:
    lines = LOG_PATH.read_text(encoding="utf-8").splitlines()

    assert len(lines) == 148
    assert "maximumPoolSize=50" in lines[2]
    assert "maximumPoolSize=10" in lines[20]
    assert "v2.15.0" in lines[18]
    assert sum("Connection is not available" in line for line in lines) >= 10


def test_a_citation_names_the_first_line_excerpt_holding_its_text() -> None:
    excerpts = [
        ("app.log", "summary: maximumPoolSize=10 seen"),
        ("app.log:21 (14:03:08Z)", "HikariPool-1 configured: maximumPoolSize=10"),
    ]
    reply = {
        "agent_response": "pool is 10{{cite:maximumPoolSize=10}}.",
        "citations": ["{{cite:maximumPoolSize=10}}"],
    }

    resolved = json.loads(resolve_citations(json.dumps(reply), excerpts))

    assert resolved["agent_response"] == "pool is 10 (`app.log:21 (14:03:08Z)`)."
    assert resolved["citations"] == ["app.log:21 (14:03:08Z)"]


def test_a_citation_of_text_no_excerpt_holds_is_left_out() -> None:
    reply = {
        "agent_response": "pool was 50{{cite:maximumPoolSize=50}}.",
        "citations": ["{{cite:maximumPoolSize=50}}"],
    }

    resolved = json.loads(resolve_citations(json.dumps(reply), [("app.log:9", "other")]))

    assert resolved == {"agent_response": "pool was 50.", "citations": []}


def test_the_story_clock_starts_each_step_at_its_time_and_runs_at_real_speed() -> None:
    clock = StoryClock(real=1000.0)
    mention, upload = STEPS[0], STEPS[2]

    clock.begin(mention, real=1010.0)
    clock.begin(upload, real=1012.0)

    assert clock.story_at(1011.5) == mention.moment(clock.day) + timedelta(seconds=1.5)
    assert clock.story_at(1013.0) == upload.moment(clock.day) + timedelta(seconds=1)


def test_the_story_clock_never_runs_backwards_or_behind_the_real_time() -> None:
    clock = StoryClock()
    clock.begin(STEPS[2])
    before = clock.now()

    clock.begin(STEPS[1])  # an earlier step's time cannot move the clock back

    assert clock.now() >= before
    assert clock.now() > datetime.now(UTC)
