"""The model reads what matters in an upload, whatever the person's caption says.

Realistic logs nobody on the team tuned for this (a big mix of eight LogHub systems with one new
error late in the file; a `kubectl logs --prefix` export of a Kafka consumer whose config dump
changed), shared with no caption and with an unhelpful one: the first model request after the
upload must carry the decisive lines and the changed setting.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from rag.service import KnowledgeService, open_knowledge_service
from tests.fakes.rag import HashingEmbedder
from tests.integration.bot.harness import BotHarness
from tests.integration.bot.replies import chat_reply, statement_reply
from tests.mixed_log import mixed_log
from tests.paths import INCIDENTS

CAPTIONS = ["", "Full app log since this morning, sorry it's big"]
KAFKA_LOG = INCIDENTS / "kafka-consumer-rebalance" / "fulfillment-worker.log"
UPLOAD_MB = 16


@pytest.fixture
async def knowledge(tmp_path: Path) -> KnowledgeService:
    """The real knowledge service (redaction, chunking, findings) with a fast embedder."""
    return await open_knowledge_service(
        lancedb_uri=str(tmp_path / "lancedb"),
        embedding_model=None,
        llm=None,
        max_upload_bytes=UPLOAD_MB * 1024 * 1024,
        embedder=HashingEmbedder(),
    )


@pytest.fixture
async def bot(slack, llm, knowledge: KnowledgeService, tmp_path: Path):  # type: ignore[no-untyped-def]
    harness = await BotHarness.start(
        slack, llm, tmp_path, knowledge=knowledge, env={"FM_MAX_UPLOAD_MB": str(UPLOAD_MB)}
    )
    try:
        yield harness
    finally:
        await harness.stop()


async def share(bot: BotHarness, name: str, content: str, caption: str) -> str:
    """Open a case, share the file with ``caption``; the first model request after it, as text."""
    thread_ts = await bot.mention("checkout is failing for some customers", statement_reply())
    before = len(bot.llm.requests)
    shared = bot.slack.add_file(name, content.encode())
    await bot.reply(thread_ts, caption, chat_reply("Reading it."), files=[shared])
    assert len(bot.llm.requests) == before + 1, "one model call answers the upload"
    messages = bot.llm.requests[before]["messages"]
    return "\n".join(str(m["content"]) for m in messages)


@pytest.mark.parametrize("caption", CAPTIONS)
async def test_a_new_error_late_in_a_big_mixed_log_reaches_the_model_with_its_lines(
    bot: BotHarness, caption: str
) -> None:
    log = mixed_log()
    lines = log.text.splitlines()

    prompt = await share(bot, "app.log", log.text, caption)

    first = log.first_cert_line
    assert "x509: certificate has expired" in prompt
    assert f"ERROR ×{len(log.cert_lines)}" in prompt, "its count, as people see it"
    assert f"app.log:{first}" in prompt, "its first line, cited"
    assert f"app.log:{log.cert_lines[-1]}" in prompt, "its last line, cited"
    # The lines around its first occurrence, numbered as the file numbers them.
    assert f"{first}: {lines[first - 1]}" in prompt
    assert f"{first - 1}: {lines[first - 2]}" in prompt


@pytest.mark.parametrize("caption", CAPTIONS)
async def test_a_kafka_export_gives_the_model_its_error_and_the_setting_that_changed(
    bot: BotHarness, caption: str
) -> None:
    text = KAFKA_LOG.read_text(encoding="utf-8")

    prompt = await share(bot, KAFKA_LOG.name, text, caption)

    lines = text.splitlines()
    error = next(i for i, line in enumerate(lines, 1) if "CommitFailedException" in line)
    changed = next(i for i, line in enumerate(lines, 1) if "max.poll.records = 5000" in line)
    assert "CommitFailedException: Offset commit cannot be completed" in prompt
    assert "max.poll.records = 500 → max.poll.records = 5000" in prompt
    # The lines as written, numbered as the file numbers them, around the error and the change
    # (a long line is cut at 300 characters).
    assert f"{error}: {lines[error - 1][:280]}" in prompt
    assert f"{changed}: {lines[changed - 1]}" in prompt
