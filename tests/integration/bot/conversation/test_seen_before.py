"""Seen before: a confirmed problem finds the finished case it repeats, shown once as a lead."""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from domain.lifecycle.status import CaseStatus
from domain.memory import DEFAULT_RULE, MatchRule
from domain.outcomes import Verdict
from rag.service import KnowledgeService, open_knowledge_service
from tests.fakes.models.llm_server import FakeLLMServer
from tests.fakes.rag import HashingEmbedder
from tests.fakes.slack.server import FakeSlack
from tests.integration.bot.harness import (
    OPENER,
    BotHarness,
    buttons,
    text_of,
    with_buttons,
)
from tests.integration.bot.past_cases import PastCase, finished
from tests.integration.bot.replies import chat_reply, statement_reply

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
PAYMENTS = PastCase(
    problem=PAST_PROBLEM,
    root_cause=ROOT_CAUSE,
    fix=FIX,
    report_title="Case report: payments API returns HTTP 500s",
    report=REPORT,
    runbook_title="Runbook: payments API returns HTTP 500s",
    runbook=RUNBOOK,
)
SEEN = "📚 *Seen before:*"
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
    past = await finished(bot, knowledge, PAYMENTS, verdict=Verdict.RIGHT)
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
    header = bot.bot_messages(thread_ts)[0]
    assert f"looks like {past.short_id}" in text_of(header), "the summary names it"

    await bot.reply(thread_ts, "pool looks fine", chat_reply("Then the pool is not it."))
    assert len(seen_before_messages(bot, thread_ts)) == 1, "shown once"
    assert past.short_id in json.dumps(bot.llm.requests[-1]), "still a lead to the model"


async def test_a_past_case_graded_wrong_is_never_offered(
    bot: BotHarness, knowledge: KnowledgeService
) -> None:
    past = await finished(bot, knowledge, PAYMENTS, verdict=Verdict.WRONG)
    thread_ts = await confirmed(bot, "Let's look at the logs.")

    assert seen_before_messages(bot, thread_ts) == []
    assert past.short_id not in bot.llm_prompts()
    kept = (await bot.case(thread_ts)).seen_before
    assert kept is not None, "looked once"
    assert kept.match is None, "found nothing clear"


async def test_use_its_runbook_posts_the_runbook_and_tells_the_model(
    bot: BotHarness, knowledge: KnowledgeService
) -> None:
    past = await finished(bot, knowledge, PAYMENTS, verdict=Verdict.UNKNOWN)
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
    await finished(bot, knowledge, PAYMENTS, verdict=Verdict.RIGHT)
    thread_ts = await confirmed(bot, "Let's look at the logs.")

    assert seen_before_messages(bot, thread_ts) == []
    assert "Seen before" not in bot.llm_prompts()


async def test_a_problem_confirmed_by_a_typed_yes_shows_the_past_case_in_that_answer(
    bot: BotHarness, knowledge: KnowledgeService
) -> None:
    past = await finished(bot, knowledge, PAYMENTS, verdict=Verdict.RIGHT)
    thread_ts = await bot.mention("payments API returns 500s", statement_reply())

    await bot.reply(thread_ts, "yes", chat_reply("Good, let's look at the pool."))

    assert (await bot.case(thread_ts)).status is CaseStatus.INVESTIGATING
    (shown,) = seen_before_messages(bot, thread_ts)
    assert "Good, let's look at the pool." in text_of(shown), "inside the answer to the yes"
    assert past.short_id in text_of(shown)
