"""The Kafka incident's thread, read as the on-call engineer reads it: its budget.

Mention, confirm, a log shared with a caption that says nothing, the root cause, the setting
reverted (recorded, not asked again), one click to resolve and have the documents written, then
`/fm score`. One new message per action; about 700 characters per action over the incident; no
message over 2,500; no long block shown twice; no edit that changes nothing; and once the case is
resolved, no button in its thread that would still act on it.
"""

from __future__ import annotations

import json
from pathlib import Path

from domain.lifecycle.status import CaseStatus
from domain.scoring.model import ScoringStatus
from tests.demo.scenario import Transcript, record_incident
from tests.demo.summary import MAX_CHARS_PER_ACTION, count
from tests.fakes.slack.server import FakeSlack
from tests.integration.bot.budget import live_buttons, repeated_blocks
from tests.integration.bot.harness import APP_TOKEN, BOT_TOKEN
from tests.integration.bot.incident import incident_bot
from tests.integration.bot.incident_replies import CitingModelServer
from tests.integration.bot.kafka_incident import MITIGATION, run_kafka_incident


def _shown(transcript: Transcript) -> list[str]:
    bots = [m for m in transcript.thread if m.get("bot_id")]
    return [json.dumps(m.get("blocks", []), ensure_ascii=False) for m in bots]


async def test_the_kafka_thread_keeps_to_its_budget(tmp_path: Path) -> None:
    transcript = await record_incident(tmp_path, "kafka")
    assert transcript.error is None, transcript.error
    actions = [(a.step.name, a.real) for a in transcript.actions]
    numbers = count(
        transcript.thread, actions, ephemerals=transcript.ephemerals, edits=transcript.edits
    )
    posts = {a.action: a.posts for a in numbers.per_action}
    bots = [m for m in transcript.thread if m.get("bot_id")]

    assert [name for name, _ in actions] == [
        "mention",
        "confirm_problem",
        "upload_log",
        "reverted",
        "resolve",
        "score",
    ]
    assert all(n <= 1 for n in posts.values()), posts
    assert not numbers.too_long, numbers.longest
    assert numbers.characters_per_action <= MAX_CHARS_PER_ACTION, numbers.characters_per_action
    assert numbers.noop_edits == 0
    assert repeated_blocks(bots) == [], "a long block shown twice"
    assert live_buttons(bots) == [], "a button that would still act on the resolved case"


async def test_the_kafka_answer_opens_with_the_changed_setting(tmp_path: Path) -> None:
    transcript = await record_incident(tmp_path, "kafka")
    assert transcript.error is None, transcript.error
    shown = _shown(transcript)

    (answer,) = [text for text in shown if "what stands out" in text]
    assert "max.poll.records" in answer, "the changed setting is a finding"
    assert "5000" in answer
    assert "CommitFailedException" in answer
    assert MITIGATION in answer, "the mitigation is in the answer"
    assert not any("been applied?" in text for text in shown), "what they did is not asked"
    assert not any("Shall I write" in text for text in shown), "resolving writes the report"


async def test_the_kafka_case_is_resolved_documented_and_scored(tmp_path: Path) -> None:
    async with (
        FakeSlack(bot_token=BOT_TOKEN, app_token=APP_TOKEN) as slack,
        CitingModelServer() as llm,
        incident_bot(slack, llm, tmp_path) as bot,
    ):
        thread_ts = await run_kafka_incident(bot)
        # The turn answering the upload: the first request quoting the file by line.
        upload_turn = next(
            text for r in bot.llm.requests if "fulfillment-worker.log:" in (text := json.dumps(r))
        )
        case = await bot.case(thread_ts)
        score = await bot.runtime.repositories.scores.latest_for_case(case.case_id)
        shared = [m for m in bot.thread(thread_ts) if m.get("files")]

    assert case.status is CaseStatus.RESOLVED
    # Captioned only "here": the model is still given the decisive lines, cited by line.
    assert "changed at fulfillment-worker.log:70" in upload_turn
    assert "max.poll.records = 5000" in upload_turn
    assert "CommitFailedException" in upload_turn
    assert score is not None
    assert score.status is ScoringStatus.COMPLETED
    assert score.total_score == 85
    assert len(shared[-1]["files"]) == 2, "the case report and the runbook, in one message"
