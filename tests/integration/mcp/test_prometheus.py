"""The bot looks at a real Prometheus through `prometheus-mcp-server`, configured like people do."""

from __future__ import annotations

import json
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest_asyncio

from bot.mcp import McpHub, load_tools_config
from domain.tools import ToolOutcome
from tests.integration.mcp.prometheus import Incident, incident_window, running_prometheus

SERVER = Path(sys.executable).parent / "prometheus-mcp-server"
ALLOWED = ["execute_query", "execute_range_query", "list_metrics"]


@pytest_asyncio.fixture
async def incident(tmp_path: Path) -> AsyncIterator[tuple[McpHub, Incident]]:
    window = incident_window(int(time.time()))
    async with running_prometheus(tmp_path, window) as url:
        config_file = tmp_path / "mcp.json"
        entry = {
            "command": str(SERVER),
            "env": {"PROMETHEUS_URL": "${PROM_URL}"},
            "cwd": str(tmp_path),
            "includeTools": ALLOWED,
            "timeout": 30_000,
        }
        config_file.write_text(json.dumps({"mcpServers": {"prometheus": entry}}))
        hub = McpHub(load_tools_config(config_file, {"PROM_URL": url}))
        await hub.start()
        try:
            yield hub, window
        finally:
            await hub.aclose()


async def test_the_servers_tools_are_listed_and_only_the_allowlisted_ones_offered(
    incident: tuple[McpHub, Incident],
) -> None:
    hub, _ = incident

    [status] = hub.status()

    assert status.running, status.detail
    assert {"execute_query", "execute_range_query", "list_metrics", "health_check"} <= set(
        status.offered
    )
    assert sorted(status.allowed) == sorted(ALLOWED)
    assert sorted(spec.name for spec in hub.catalogue()) == [
        "prometheus__execute_query",
        "prometheus__execute_range_query",
        "prometheus__list_metrics",
    ]


async def test_a_range_query_returns_the_incidents_series(
    incident: tuple[McpHub, Incident],
) -> None:
    hub, window = incident
    query = 'sum by (status) (rate(http_requests_total{service="checkout-api"}[5m]))'

    result = await hub.call(
        server="prometheus",
        tool="execute_range_query",
        arguments={
            "query": query,
            "start": str(window.began - 1800),
            "end": str(window.ended + 1800),
            "step": "60s",
        },
    )

    assert result.outcome is ToolOutcome.OK, result.sentence
    answer = json.loads(result.text)
    assert answer["resultType"] == "matrix"
    rates = {series["metric"]["status"]: series["values"] for series in answer["result"]}
    errors = {int(at): float(value) for at, value in rates["502"]}
    during = [rate for at, rate in errors.items() if window.began + 300 <= at < window.ended]
    before = [rate for at, rate in errors.items() if at < window.began]
    assert during
    assert min(during) > 90
    assert before
    assert max(before) == 0
    assert json.loads(result.record.arguments)["query"] == query
    assert result.record.outcome is ToolOutcome.OK


async def test_an_instant_query_and_a_tool_outside_the_allowlist(
    incident: tuple[McpHub, Incident],
) -> None:
    hub, window = incident

    pool = await hub.call(
        server="prometheus",
        tool="execute_query",
        arguments={"query": "max(db_pool_in_use)", "time": str(window.began + 600)},
    )
    health = await hub.call(server="prometheus", tool="health_check", arguments={})

    assert pool.outcome is ToolOutcome.OK, pool.sentence
    assert json.loads(pool.text)["result"][0]["value"][1] == "50"
    assert health.outcome is ToolOutcome.REFUSED
