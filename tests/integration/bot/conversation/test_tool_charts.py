"""A range query's answer reaches the thread as a chart too: a PNG shared beside the reply,
described for screen readers, that Slack accepts."""

from __future__ import annotations

import json
import sys
from collections.abc import AsyncIterator, Mapping
from pathlib import Path

import pytest

from bot.mcp import McpHub
from domain.tools import parse_config
from tests.fakes.knowledge import FakeKnowledge
from tests.fakes.models.llm_server import FakeLLMServer
from tests.fakes.slack.server import FakeSlack
from tests.integration.bot.harness import BotHarness, eventually, with_buttons
from tests.integration.bot.replies import chat_reply, statement_reply
from tests.paths import REPO_ROOT

RANGE = {
    "query": "up",
    "start": "2026-11-27T14:05:00Z",
    "end": "2026-11-27T14:35:00Z",
    "step": "60s",
}


@pytest.fixture
async def trusting(
    slack: FakeSlack, llm: FakeLLMServer, knowledge: FakeKnowledge, tmp_path: Path
) -> AsyncIterator[BotHarness]:
    entry = {
        "command": sys.executable,
        "args": ["-m", "tests.fakes.mcp_server"],
        "cwd": str(REPO_ROOT),
        "includeTools": ["execute_range_query", "echo"],
        "timeout": 5_000,
        "trust": True,
    }
    tools = McpHub(parse_config({"mcpServers": {"fake": entry}}, {}))
    bot = await BotHarness.start(slack, llm, tmp_path, knowledge=knowledge, tools=tools)
    try:
        await eventually(lambda: bool(tools.catalogue()), seconds=60)
        yield bot
    finally:
        await bot.stop()


async def asked(bot: BotHarness, tool: str, arguments: Mapping[str, object]) -> str:
    thread_ts = await bot.mention("checkout-api answers 502s", statement_reply())
    (question,) = with_buttons(bot.bot_messages(thread_ts), "fm_answer")
    bot.llm.script(chat_reply("Investigating."))
    await bot.click(question, decision="yes")
    request = {"name": f"fake__{tool}", "arguments": json.dumps(arguments), "reason": "the rate"}
    await bot.reply(
        thread_ts,
        "what does the rate say?",
        chat_reply("Reading it.", tool_requests=[request]),
        chat_reply("It rose at 14:05."),
    )
    return thread_ts


async def test_a_range_query_is_shared_as_a_chart_after_the_reply_that_reads_it(
    trusting: BotHarness, slack: FakeSlack
) -> None:
    bot = trusting
    thread_ts = await asked(bot, "execute_range_query", RANGE)

    (run,) = (await bot.case(thread_ts)).tool_runs
    (requested,) = slack.calls_to("files.getUploadURLExternal", ok=True)
    assert requested["filename"] == "fake-execute_range_query-1.png"
    assert str(requested["alt_txt"]).startswith(f"Line chart of {run.citation}: 1 series")
    (shared,) = slack.calls_to("files.completeUploadExternal", ok=True)
    assert shared["thread_ts"] == thread_ts
    assert shared["files"][0]["title"] == run.citation
    (message,) = [m for m in bot.thread(thread_ts) if m.get("files")]
    (image,) = message["files"]
    assert image["mimetype"] == "image/png"
    stored = slack.workspace.files[image["id"]].content
    assert stored is not None
    assert stored.startswith(b"\x89PNG")
    answers = [m for m in bot.bot_messages(thread_ts) if "It rose at 14:05." in m.get("text", "")]
    assert float(answers[0]["ts"]) < float(message["ts"]), "the chart follows the reply"
    assert slack.invalid_payloads == []


async def test_a_tool_that_answers_no_series_shares_no_chart(
    trusting: BotHarness, slack: FakeSlack
) -> None:
    await asked(trusting, "echo", {"text": "rate 0.4"})

    assert slack.calls_to("files.getUploadURLExternal") == []
