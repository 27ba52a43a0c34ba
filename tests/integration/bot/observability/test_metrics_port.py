"""/metrics in Socket Mode: on the bot's HTTP port, and alone on FM_METRICS_PORT; the Socket
Mode acknowledgement is timed like an HTTP one."""

from __future__ import annotations

import re
import socket
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.fakes.knowledge import FakeKnowledge
from tests.fakes.models.llm_server import FakeLLMServer
from tests.fakes.slack.server import FakeSlack
from tests.integration.bot.harness import CHANNEL, MENTION, BotHarness
from tests.integration.bot.replies import statement_reply

ACKS = re.compile(r'^fm_slack_ack_seconds_count\{kind="event:message"\} (\S+)$', re.M)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture
def metrics_port() -> int:
    return free_port()


@pytest.fixture
async def socket_bot(
    slack: FakeSlack,
    llm: FakeLLMServer,
    knowledge: FakeKnowledge,
    tmp_path: Path,
    metrics_port: int,
) -> AsyncIterator[BotHarness]:
    harness = await BotHarness.start(
        slack,
        llm,
        tmp_path,
        knowledge=knowledge,
        socket_mode=True,
        env={"FM_METRICS_PORT": str(metrics_port)},
    )
    try:
        yield harness
    finally:
        await harness.stop()


async def scraped(bot: BotHarness, url: str) -> str:
    async with bot.session.get(url) as response:
        assert response.status == 200
        assert response.headers["Content-Type"].startswith("text/plain; version=0.0.4")
        return await response.text()


def acks(text: str) -> float:
    found = ACKS.search(text)
    return float(found.group(1)) if found else 0.0


async def test_socket_mode_serves_metrics_on_its_own_port_and_times_the_acks(
    socket_bot: BotHarness, slack: FakeSlack, metrics_port: int
) -> None:
    await slack.socket_mode.wait_connected()
    alone = f"http://127.0.0.1:{metrics_port}/metrics"
    before = acks(await scraped(socket_bot, alone))
    socket_bot.llm.script(statement_reply())
    message = slack.payloads.message(f"{MENTION} db-1 is down", channel=CHANNEL)
    await slack.socket_mode.wait_for_ack(await slack.socket_mode.send_request(message))
    await socket_bot.settle()

    on_its_port = await scraped(socket_bot, alone)
    on_the_http_port = await scraped(socket_bot, f"{socket_bot.url}/metrics")

    assert acks(on_its_port) == before + 1
    assert "fm_inbox_depth" in on_its_port
    assert "fm_turns_total" in on_the_http_port
    async with socket_bot.session.get(f"http://127.0.0.1:{metrics_port}/healthz") as response:
        assert response.status == 404, "the metrics port serves /metrics alone"
