"""A big log's findings come before its vectors; a question meanwhile is answered and told so;
vectors a stopped bot owed are finished when it starts again."""

from __future__ import annotations

import asyncio
from pathlib import Path

from rag.service import KnowledgeService, open_knowledge_service
from rag.store.tables import TableName
from tests.fakes.models.llm_server import FakeLLMServer
from tests.fakes.rag import HashingEmbedder
from tests.fakes.slack.server import FakeSlack
from tests.integration.bot.harness import BotHarness, text_of
from tests.integration.bot.replies import chat_reply, statement_reply
from tests.integration.rag.test_ingestion import varied_log

STILL = "big.log is still being indexed for search by meaning"


async def service_on(path: Path, embedder: HashingEmbedder) -> KnowledgeService:
    return await open_knowledge_service(
        lancedb_uri=str(path),
        embedding_model=None,
        llm=None,
        max_upload_bytes=1024 * 1024,
        embedder=embedder,
    )


async def owed(service: KnowledgeService) -> int:
    return await service.store.count(TableName.EVIDENCE, "vector IS NULL")


async def test_the_findings_and_a_question_come_before_the_vectors_and_say_so(
    slack: FakeSlack, llm: FakeLLMServer, tmp_path: Path
) -> None:
    gate = asyncio.Event()  # the model's batches wait: the vectors cannot be written yet
    knowledge = await service_on(tmp_path / "lancedb", HashingEmbedder(gate=gate))
    bot = await BotHarness.start(slack, llm, tmp_path, knowledge=knowledge)
    try:
        thread_ts = await bot.mention("payments calls fail since 14:05", statement_reply())
        shared = bot.slack.add_file("big.log", varied_log(400))
        await bot.reply(thread_ts, "here is the log", chat_reply("Looking."), files=[shared])
        findings = text_of(bot.bot_messages(thread_ts)[-1])
        await bot.reply(thread_ts, "what does hotel golf delta mean?", chat_reply("A test."))
        meanwhile = text_of(bot.bot_messages(thread_ts)[-1])
        prompt = bot.llm.requests[-1]
        rows_owed = await owed(knowledge)
        gate.set()
        await knowledge.settled()
        await bot.reply(thread_ts, "and hotel golf echo?", chat_reply("Another."))
        after = text_of(bot.bot_messages(thread_ts)[-1])
    finally:
        await bot.stop()

    assert "big.log" in findings
    assert "what stands out" in findings
    assert STILL in findings
    assert STILL in meanwhile
    assert f"System note: {STILL}" in str(prompt)
    assert rows_owed == 20
    assert STILL not in after
    assert await owed(knowledge) == 0


async def test_a_restarted_bot_finishes_the_vectors_its_last_run_owed(
    slack: FakeSlack, llm: FakeLLMServer, tmp_path: Path
) -> None:
    stopped = await service_on(tmp_path / "lancedb", HashingEmbedder(gate=asyncio.Event()))
    report = await stopped.ingest_case_file(
        team_id="T1", case_id="C1", filename="big.log", content=varied_log(400)
    )
    await stopped.aclose()
    before = await owed(stopped)

    knowledge = await service_on(tmp_path / "lancedb", HashingEmbedder())
    bot = await BotHarness.start(slack, llm, tmp_path, knowledge=knowledge)
    try:
        await asyncio.wait_for(knowledge.settled(), timeout=30)
    finally:
        await bot.stop()

    assert before == report.chunks
    assert await owed(knowledge) == 0
    assert await knowledge.store.count(TableName.EVIDENCE, "scope_id = 'C1'") == report.chunks
