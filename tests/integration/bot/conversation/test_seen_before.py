"""Seen before: a confirmed problem finds the finished case it repeats, shown once as a lead."""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from domain.base import utc_now
from domain.case import Case
from domain.investigation.conclusions import RootCauseConclusion
from domain.knowledge import KnowledgeBaseKind
from domain.lifecycle.confirmations import StatusChangePayload
from domain.lifecycle.proposals import propose
from domain.lifecycle.status import CaseStatus
from domain.memory import DEFAULT_RULE, MatchRule
from domain.outcomes import Outcome, Verdict
from rag.service import KnowledgeService, open_knowledge_service
from tests.fakes.models.llm_server import FakeLLMServer
from tests.fakes.rag import HashingEmbedder
from tests.fakes.slack.server import FakeSlack
from tests.fakes.slack.state import TEAM_ID
from tests.integration.bot.harness import (
    CHANNEL,
    OPENER,
    BotHarness,
    buttons,
    text_of,
    with_buttons,
)
from tests.integration.bot.replies import chat_reply, statement_reply
from tests.unit.domain.builders import answer_yes, investigating_case

PAST_TS = "1690000000.000100"
PAST_PROBLEM = "The payments API answers HTTP 500 to about a third of its requests"
ROOT_CAUSE = "The deploy cut the database connection pool of payments from 50 to 10"
FIX = "Rolled the payments deploy back to v4.11.3"
RUNBOOK = (
    "# Runbook: payments API returns HTTP 500s\n\n"
    "## Check\n\nCount the waiting connections of the payments pool.\n\n"
    "## Fix\n\nRoll the deploy back and raise the pool size to 50.\n"
)
REPORT = (
    "# Case report: payments API returns HTTP 500s\n\n"
    f"## Problem\n\n{PAST_PROBLEM} since 14:05 UTC.\n\n"
    f"## Root cause\n\n{ROOT_CAUSE}.\n"
)
SEEN = "Seen before"
STRICT = MatchRule(threshold=0.99)
"""A rule no paraphrase meets (the runtime takes the rule, so tests can set it)."""


@pytest.fixture
async def knowledge(tmp_path: Path) -> KnowledgeService:
    """The real knowledge service with a fast embedder."""
    return await open_knowledge_service(
        lancedb_uri=str(tmp_path / "lancedb"),
        embedding_model=None,
        llm=None,
        max_upload_bytes=1024 * 1024,
        embedder=HashingEmbedder(),
    )


@pytest.fixture
def rule() -> MatchRule:
    return DEFAULT_RULE


@pytest.fixture
async def bot(
    slack: FakeSlack,
    llm: FakeLLMServer,
    knowledge: KnowledgeService,
    tmp_path: Path,
    rule: MatchRule,
) -> AsyncIterator[BotHarness]:
    harness = await BotHarness.start(slack, llm, tmp_path, knowledge=knowledge, seen_before=rule)
    try:
        yield harness
    finally:
        await harness.stop()


def past_case() -> Case:
    """A resolved case of this workspace with a root cause and a runbook, in CHANNEL."""
    case = investigating_case()
    case.team_id = TEAM_ID
    case.channel_id, case.thread_ts = CHANNEL, PAST_TS
    case.consulting.proposed_problem_statement = PAST_PROBLEM
    case.problem_verification = None
    case.root_cause_conclusion = RootCauseConclusion(
        root_cause=ROOT_CAUSE, confidence_score=0.8, mechanism="requests wait for a connection"
    )
    payload = StatusChangePayload(to_status=CaseStatus.RESOLVED, resolution_summary=FIX)
    answer_yes(case, propose(case, payload, now=case.created_at))
    assert case.status is CaseStatus.RESOLVED
    case.documentation.runbook_entry = "Runbook: payments API returns HTTP 500s"
    case.documentation.artifacts.runbook_generated = RUNBOOK
    return case


async def finished(bot: BotHarness, knowledge: KnowledgeService, *, verdict: Verdict) -> Case:
    """The past case stored, its thread in Slack, its report and runbook in the knowledge base."""
    case = past_case()
    bot.slack.add_message(CHANNEL, "payments API 500s", user=OPENER, ts=PAST_TS)
    case = await bot.runtime.repositories.cases.add(case)
    for title, markdown in (
        ("Case report: payments API returns HTTP 500s", REPORT),
        (case.documentation.runbook_entry or "", RUNBOOK),
    ):
        await knowledge.save_document(
            team_id=TEAM_ID,
            kb=KnowledgeBaseKind.GLOBAL,
            scope_id=None,
            title=title,
            markdown=markdown,
            case_id=case.case_id,
        )
    now = utc_now()
    outcome = Outcome(
        team_id=TEAM_ID,
        case_id=case.case_id,
        verdict=verdict,
        reason="test",
        finished_at=now,
        recorded_at=now,
    )
    await bot.runtime.repositories.outcomes.record(outcome)
    return case


async def confirmed(bot: BotHarness, answer: str) -> str:
    """A new case whose (paraphrased) problem the opener confirms; the turn after it answers."""
    thread_ts = await bot.mention("payments API returns 500s", statement_reply())
    bot.llm.script(chat_reply(answer))
    (question,) = with_buttons(bot.bot_messages(thread_ts), "fm_answer")
    await bot.click(question, decision="yes", action_prefix="fm_answer")
    return thread_ts


def seen_before_messages(bot: BotHarness, thread_ts: str) -> list[dict[str, object]]:
    return [m for m in bot.bot_messages(thread_ts) if SEEN in text_of(m)]


async def test_a_confirmed_problem_shows_the_past_case_it_repeats_once_with_a_link(
    bot: BotHarness, knowledge: KnowledgeService
) -> None:
    past = await finished(bot, knowledge, verdict=Verdict.RIGHT)
    thread_ts = await confirmed(bot, "Let's check the connection pool first.")

    (shown,) = seen_before_messages(bot, thread_ts)
    assert "Let's check the connection pool first." in text_of(shown), "inside the reply"
    link = re.search(rf"<(https://[^|>]+)\|{past.short_id}>", text_of(shown))
    assert link is not None
    assert f"/archives/{past.channel_id}/p{past.thread_ts.replace('.', '')}" in link.group(1)
    assert ROOT_CAUSE in text_of(shown)
    assert FIX in text_of(shown)
    assert [b["action_id"] for b in buttons(shown)].count("fm_use_runbook") == 1
    assert "Seen before: a lead, not a conclusion" in bot.llm_prompts()
    assert (await bot.case(thread_ts)).seen_before is not None

    await bot.reply(thread_ts, "pool looks fine", chat_reply("Then the pool is not it."))
    assert len(seen_before_messages(bot, thread_ts)) == 1, "shown once"
    assert past.short_id in json.dumps(bot.llm.requests[-1]), "still a lead to the model"


async def test_a_past_case_graded_wrong_is_never_offered(
    bot: BotHarness, knowledge: KnowledgeService
) -> None:
    past = await finished(bot, knowledge, verdict=Verdict.WRONG)
    thread_ts = await confirmed(bot, "Let's look at the logs.")

    assert seen_before_messages(bot, thread_ts) == []
    assert past.short_id not in bot.llm_prompts()
    kept = (await bot.case(thread_ts)).seen_before
    assert kept is not None, "looked once"
    assert kept.match is None, "found nothing clear"


async def test_use_its_runbook_posts_the_runbook_and_tells_the_model(
    bot: BotHarness, knowledge: KnowledgeService
) -> None:
    past = await finished(bot, knowledge, verdict=Verdict.UNKNOWN)
    thread_ts = await confirmed(bot, "Let's check the connection pool first.")
    (shown,) = seen_before_messages(bot, thread_ts)

    await bot.click(shown, action_prefix="fm_use_runbook")

    (posted,) = [m for m in bot.bot_messages(thread_ts) if m.get("files")]
    assert f"chose to follow the runbook of {past.short_id}" in str(posted.get("text"))
    assert bot.slack.file_content(posted["files"][0]["id"]) == RUNBOOK.encode()
    assert (await bot.case(thread_ts)).seen_before.runbook_followed_by == OPENER  # type: ignore[union-attr]
    await bot.reply(thread_ts, "step one done", chat_reply("What did the pool show?"))
    assert f"chose to follow the runbook of {past.short_id}" in bot.llm_prompts()


@pytest.mark.parametrize("rule", [STRICT])
async def test_a_match_below_the_threshold_is_not_shown(
    bot: BotHarness, knowledge: KnowledgeService
) -> None:
    await finished(bot, knowledge, verdict=Verdict.RIGHT)
    thread_ts = await confirmed(bot, "Let's look at the logs.")

    assert seen_before_messages(bot, thread_ts) == []
    assert "Seen before" not in bot.llm_prompts()
