"""An alert's case reads the series that fired through the team's trusted tools before its RCA.

The tools are the in-repo fake MCP server over stdio, whose `execute_range_query` answers a
made-up Prometheus matrix for whatever expression it is asked; and a real Prometheus holding a
made-up incident, read through `prometheus-mcp-server`.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from bot.mcp import McpHub
from domain.tools import parse_config
from domain.tools.runs import TRUST, ToolRunStatus
from tests.alerts import crash_looping, rule
from tests.fakes.knowledge import FakeKnowledge
from tests.fakes.models.llm_server import FakeLLMServer, reply
from tests.fakes.slack.server import FakeSlack
from tests.integration.bot.alerts.alert_harness import (
    alert_bot,
    alert_messages,
    post_alert,
    thread_text,
)
from tests.integration.bot.harness import BotHarness, eventually
from tests.integration.mcp.prometheus import incident_window, running_prometheus
from tests.paths import REPO_ROOT
from tests.unit.domain.workflows.catalog_data import findings

EXPRESSION = str(rule("KubePodCrashLooping")["expr"]).strip()
REAL_QUERY = 'sum by (status) (rate(http_requests_total{service="checkout-api"}[5m]))'


def tools(*, trust: bool) -> McpHub:
    entry = {
        "command": sys.executable,
        "args": ["-m", "tests.fakes.mcp_server"],
        "cwd": str(REPO_ROOT),
        "includeTools": ["execute_range_query", "echo"],
        "timeout": 5_000,
        "trust": trust,
    }
    return McpHub(parse_config({"mcpServers": {"fake": entry}}, {}))


async def looking_bot(
    slack: FakeSlack, llm: FakeLLMServer, tmp_path: Path, *, trust: bool
) -> tuple[BotHarness, FakeKnowledge]:
    hub, knowledge = tools(trust=trust), FakeKnowledge()
    bot = await alert_bot(slack, llm, tmp_path, catalog=False, tools=hub, knowledge=knowledge)
    await eventually(lambda: bool(hub.catalogue()), seconds=60)
    return bot, knowledge


@pytest.fixture
async def trusting(
    slack: FakeSlack, llm: FakeLLMServer, tmp_path: Path
) -> AsyncIterator[tuple[BotHarness, FakeKnowledge]]:
    bot, knowledge = await looking_bot(slack, llm, tmp_path, trust=True)
    try:
        yield bot, knowledge
    finally:
        await bot.stop()


@pytest.fixture
async def asking(
    slack: FakeSlack, llm: FakeLLMServer, tmp_path: Path
) -> AsyncIterator[tuple[BotHarness, FakeKnowledge]]:
    bot, knowledge = await looking_bot(slack, llm, tmp_path, trust=False)
    try:
        yield bot, knowledge
    finally:
        await bot.stop()


def with_expression() -> dict[str, Any]:
    notification = crash_looping()
    url = f"http://prometheus.monitoring.svc:9090/graph?g0.expr={quote(EXPRESSION)}&g0.tab=1"
    for alert in notification["alerts"]:
        alert["generatorURL"] = url
    return notification


async def opened(bot: BotHarness) -> str:
    bot.llm.script(reply(findings()))
    status, _ = await post_alert(bot, with_expression())
    assert status == 200
    await bot.settle(expect=2)
    [alert] = alert_messages(bot)
    return str(alert["ts"])


async def test_a_trusted_range_query_of_the_alerts_expression_runs_before_the_analysis(
    trusting: tuple[BotHarness, FakeKnowledge],
) -> None:
    bot, knowledge = trusting
    thread_ts = await opened(bot)

    case = await bot.case(thread_ts)
    (run,) = case.tool_runs
    assert (run.tool, run.status, run.consented_by) == (
        "execute_range_query",
        ToolRunStatus.RAN,
        TRUST,
    )
    assert json.loads(run.arguments)["query"] == EXPRESSION
    assert run.citation.startswith("fake:execute_range_query#1 (")
    (rca,) = bot.llm.requests
    sent = json.dumps(rca["messages"])
    assert 'kind=\\"tool-result\\" cite=\\"fake:execute_range_query#1' in sent
    assert "matrix" in sent, "the series is quoted to the RCA"
    shown = thread_text(bot, thread_ts)
    assert "Read first: fake execute_range_query of" in shown
    assert "1 series, 5 points" in shown
    (chart,) = bot.slack.calls_to("files.completeUploadExternal", ok=True)
    assert chart["thread_ts"] == thread_ts, "the series is drawn under the analysis"
    assert chart["files"][0]["title"] == run.citation
    sources = {c.citation.source for chunks in knowledge.case.values() for c in chunks}
    assert "fake-execute_range_query-1.txt" in sources
    audit = await bot.runtime.repositories.audit.list_for_case(case.case_id)
    assert any(entry.action == "tool.called" for entry in audit)


async def test_without_trust_the_analysis_runs_no_tool(
    asking: tuple[BotHarness, FakeKnowledge],
) -> None:
    bot, _ = asking
    thread_ts = await opened(bot)

    assert (await bot.case(thread_ts)).tool_runs == []
    assert "tool-result" not in json.dumps(bot.llm.requests)
    assert "Read first" not in thread_text(bot, thread_ts)
    assert bot.slack.calls_to("files.getUploadURLExternal") == []


async def test_a_real_prometheus_answers_the_alerts_expression_before_the_analysis(
    slack: FakeSlack, llm: FakeLLMServer, tmp_path: Path
) -> None:
    window = incident_window(int(time.time()))
    async with running_prometheus(tmp_path, window) as url:
        entry = {
            "command": str(Path(sys.executable).parent / "prometheus-mcp-server"),
            "env": {"PROMETHEUS_URL": url},
            "cwd": str(tmp_path),
            "includeTools": ["execute_range_query"],
            "timeout": 30_000,
            "trust": True,
        }
        hub = McpHub(parse_config({"mcpServers": {"prometheus": entry}}, {}))
        bot = await alert_bot(slack, llm, tmp_path / "bot", catalog=False, tools=hub)
        try:
            await eventually(lambda: bool(hub.catalogue()), seconds=90)
            notification = crash_looping()
            began = datetime.fromtimestamp(window.began, UTC).isoformat()
            for alert in notification["alerts"]:
                alert["annotations"]["expr"] = REAL_QUERY
                alert["startsAt"] = began
            bot.llm.script(reply(findings()))
            status, _ = await post_alert(bot, notification)
            assert status == 200
            await bot.settle(expect=2, seconds=60)
            [alert_message] = alert_messages(bot)
            thread_ts = str(alert_message["ts"])

            (run,) = (await bot.case(thread_ts)).tool_runs
            assert run.outcome is not None
            assert run.outcome.value == "ok", run.sentence
            shown = thread_text(bot, thread_ts)
            assert "Read first: prometheus execute_range_query of" in shown
            assert "2 series" in shown, "the 200s and the 502s"
            assert '\\"502\\"' in json.dumps(bot.llm.requests[0]["messages"])
            (chart,) = bot.slack.calls_to("files.completeUploadExternal", ok=True)
            assert chart["thread_ts"] == thread_ts
        finally:
            await bot.stop()
