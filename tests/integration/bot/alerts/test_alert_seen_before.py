"""Seen before for an alert: the case an alert opens is matched against finished cases at once."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from domain.memory import MatchRule
from domain.outcomes import Verdict
from rag.service import KnowledgeService, open_knowledge_service
from tests.alerts import crash_looping
from tests.fakes.models.llm_server import FakeLLMServer
from tests.fakes.rag import HashingEmbedder
from tests.fakes.slack.server import FakeSlack
from tests.integration.bot.alerts.alert_harness import (
    alert_bot,
    alert_messages,
    analysis,
    post_alert,
)
from tests.integration.bot.harness import BotHarness, buttons, text_of
from tests.integration.bot.past_cases import PastCase, finished
from tests.unit.domain.workflows.catalog_data import RESTART, strategy

CRASH_LOOP = PastCase(
    problem="KubePodCrashLooping: payments-api pod in CrashLoopBackOff in production",
    root_cause="A bad config map made the payments api container exit at start",
    fix="Restored the previous payments config map and restarted the deployment",
    report_title="Case report: payments-api pod crash looping",
    report=(
        "# Case report: payments-api pod crash looping\n\n"
        "## Problem\n\nKubePodCrashLooping: Pod is crash looping. The payments-api pod "
        "restarted in CrashLoopBackOff.\n"
    ),
    runbook_title="Runbook: payments-api pod crash looping",
    runbook="# Runbook: payments-api pod crash looping\n\n## Check\n\nkubectl describe pod.\n",
)


FAKE_EMBEDDER_RULE = MatchRule(threshold=0.4)
"""The fast fake embedder scores the alert's short title lower than the bundled model would."""


@pytest.fixture
async def knowledge(tmp_path: Path) -> KnowledgeService:
    return await open_knowledge_service(
        lancedb_uri=str(tmp_path / "lancedb"),
        embedding_model=None,
        llm=None,
        max_upload_bytes=1024 * 1024,
        embedder=HashingEmbedder(),
    )


@pytest.fixture
async def bot(
    slack: FakeSlack, llm: FakeLLMServer, knowledge: KnowledgeService, tmp_path: Path
) -> AsyncIterator[BotHarness]:
    harness = await alert_bot(
        slack, llm, tmp_path, knowledge=knowledge, seen_before=FAKE_EMBEDDER_RULE
    )
    try:
        yield harness
    finally:
        await harness.stop()


async def test_an_alert_like_a_finished_case_opens_its_analysis_with_the_past_case(
    bot: BotHarness, knowledge: KnowledgeService
) -> None:
    past = await finished(bot, knowledge, CRASH_LOOP, verdict=Verdict.RIGHT)
    bot.llm.script(*analysis(strategy(RESTART)))

    await post_alert(bot, crash_looping())
    await bot.settle(expect=2)

    thread_ts = str(alert_messages(bot)[0]["ts"])
    shown = [m for m in bot.bot_messages(thread_ts) if "📚 *Seen before:*" in text_of(m)]
    assert len(shown) == 1, "one block, opening the analysis"
    assert past.short_id in text_of(shown[0])
    assert any(b["action_id"] == "fm_use_runbook" for b in buttons(shown[0]))
    case = await bot.case(thread_ts)
    assert case.seen_before is not None
    assert case.seen_before.match is not None
    assert case.seen_before.match.case_id == past.case_id
