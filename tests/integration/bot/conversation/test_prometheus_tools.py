"""A case looks at a real Prometheus: the model asks for a range query, it runs (after ▶ Run it,
or at once with `trust`), and the next answer cites the result.

Prometheus holds a made-up incident (checkout-api answering 502s for 20 minutes) and is read
through `prometheus-mcp-server` over stdio, configured in an `mcpServers` file like people do.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from bot.mcp import McpHub, load_tools_config
from domain.tools.runs import TRUST, ToolRunStatus, citation_of
from tests.fakes.knowledge import FakeKnowledge
from tests.fakes.models.llm_server import FakeLLMServer
from tests.fakes.slack.server import FakeSlack
from tests.integration.bot.harness import OPENER, BotHarness, eventually, text_of, with_buttons
from tests.integration.bot.replies import chat_reply, statement_reply
from tests.integration.mcp.prometheus import Incident, incident_window, running_prometheus

SERVER = Path(sys.executable).parent / "prometheus-mcp-server"
QUERY = 'sum by (status) (rate(http_requests_total{service="checkout-api"}[5m]))'


@dataclass
class Looking:
    bot: BotHarness
    window: Incident


async def looking(
    slack: FakeSlack,
    llm: FakeLLMServer,
    knowledge: FakeKnowledge,
    tmp_path: Path,
    *,
    trust: bool,
) -> AsyncIterator[Looking]:
    window = incident_window(int(time.time()))
    async with running_prometheus(tmp_path, window) as url:
        config = tmp_path / "mcp.json"
        entry = {
            "command": str(SERVER),
            "env": {"PROMETHEUS_URL": url},
            "cwd": str(tmp_path),
            "includeTools": ["execute_query", "execute_range_query", "list_metrics"],
            "timeout": 30_000,
            "trust": trust,
        }
        config.write_text(json.dumps({"mcpServers": {"prometheus": entry}}))
        tools = McpHub(load_tools_config(config, {}))
        bot = await BotHarness.start(slack, llm, tmp_path / "bot", knowledge=knowledge, tools=tools)
        try:
            await eventually(lambda: bool(tools.catalogue()), seconds=90)
            yield Looking(bot, window)
        finally:
            await bot.stop()


@pytest.fixture
async def asking(
    slack: FakeSlack, llm: FakeLLMServer, knowledge: FakeKnowledge, tmp_path: Path
) -> AsyncIterator[Looking]:
    async for found in looking(slack, llm, knowledge, tmp_path, trust=False):
        yield found


@pytest.fixture
async def trusting(
    slack: FakeSlack, llm: FakeLLMServer, knowledge: FakeKnowledge, tmp_path: Path
) -> AsyncIterator[Looking]:
    async for found in looking(slack, llm, knowledge, tmp_path, trust=True):
        yield found


def range_arguments(window: Incident) -> str:
    return json.dumps(
        {
            "query": QUERY,
            "start": str(window.began - 1800),
            "end": str(window.ended + 1800),
            "step": "60s",
        },
        sort_keys=True,
    )


async def asked_for_the_range_query(bot: BotHarness, window: Incident, *then: object) -> str:
    thread_ts = await bot.mention("checkout-api answers 502s", statement_reply())
    (question,) = with_buttons(bot.bot_messages(thread_ts), "fm_answer")
    await bot.click(question, decision="yes")
    request = {
        "name": "prometheus__execute_range_query",
        "arguments": range_arguments(window),
        "reason": "The 502 rate by status around the incident shows when it began and ended.",
    }
    await bot.reply(
        thread_ts,
        "when did the 502s start?",
        chat_reply("The error rate will tell.", tool_requests=[request]),
        *then,  # type: ignore[arg-type]
    )
    return thread_ts


def cited_answer(window: Incident) -> object:
    label = citation_of("prometheus", "execute_range_query", 1, range_arguments(window))
    return chat_reply(f"502s rose to about 100 a second at the start ({label}).", citations=[label])


async def test_the_person_clicks_run_and_the_next_answer_cites_the_range_query(
    asking: Looking,
) -> None:
    bot, window = asking.bot, asking.window
    thread_ts = await asked_for_the_range_query(bot, window)
    (card,) = with_buttons(bot.bot_messages(thread_ts), "fm_run_tool")
    assert "prometheus execute_range_query" in text_of(card)

    bot.llm.script(cited_answer(window))  # type: ignore[arg-type]
    await bot.click(card, action_prefix="fm_run_tool")

    case = await bot.case(thread_ts)
    (run,) = case.tool_runs
    assert run.status is ToolRunStatus.RAN
    assert run.consented_by == OPENER
    assert run.citation.startswith("prometheus:execute_range_query#1 (")
    sent = json.dumps(bot.llm.requests[-1])
    assert '\\"resultType\\": \\"matrix\\"' in sent or "matrix" in sent
    assert '\\"502\\"' in sent
    answer, chart = bot.bot_messages(thread_ts)[-2:]
    assert chart["files"][0]["title"] == run.citation, "the series follows as a chart"
    assert run.citation in text_of(answer)
    assert "prometheus execute_range_query answered" in text_of(answer)


async def test_with_trust_the_range_query_runs_without_a_click(trusting: Looking) -> None:
    bot, window = trusting.bot, trusting.window

    thread_ts = await asked_for_the_range_query(bot, window, cited_answer(window))

    case = await bot.case(thread_ts)
    (run,) = case.tool_runs
    assert run.status is ToolRunStatus.RAN
    assert run.consented_by == TRUST
    assert not with_buttons(bot.bot_messages(thread_ts), "fm_run_tool")
    assert run.citation in text_of(bot.bot_messages(thread_ts)[-2])
