"""A real Prometheus scrapes a running `fm run --http`: the bot's metrics, read back through
Prometheus' HTTP API after two turns (and with no case text or user id in any label)."""

from __future__ import annotations

import asyncio
import contextlib
import socket
import subprocess
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from tests.binaries import binary
from tests.fakes.bot_process import BOT_TOKEN, SIGNING_SECRET, BotProcess, bot_process
from tests.fakes.models.llm_server import FakeLLMServer
from tests.fakes.slack.server import FakeSlack
from tests.fakes.slack.state import BOT_USER_ID
from tests.integration.bot.replies import statement_reply

CHANNEL = "C111"
PERSON = "W222"
SUBJECTS = ("payments returns 500s since 14:05", "checkout is slow for eu-west users")
WAIT_S = 60.0

pytestmark = pytest.mark.timeout(240)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextlib.contextmanager
def prometheus(target: str, folder: Path) -> Iterator[str]:
    """Prometheus scraping ``target`` (host:port) every second; its base URL."""
    config = folder / "prometheus.yml"
    config.write_text(
        "global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\n"
        "scrape_configs:\n  - job_name: faultmaven\n"
        f"    static_configs:\n      - targets: ['{target}']\n"
    )
    address = f"127.0.0.1:{free_port()}"
    process = subprocess.Popen(
        [
            binary("prometheus"),
            f"--config.file={config}",
            f"--storage.tsdb.path={folder / 'tsdb'}",
            f"--web.listen-address={address}",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        yield f"http://{address}"
    finally:
        process.terminate()
        process.wait(timeout=30)


async def query(session: aiohttp.ClientSession, base: str, promql: str) -> list[dict[str, Any]]:
    """An instant query's result vector ([] while Prometheus is not up yet)."""
    try:
        async with session.get(f"{base}/api/v1/query", params={"query": promql}) as response:
            body = await response.json()
    except aiohttp.ClientConnectionError:
        return []
    assert body["status"] == "success", body
    result: list[dict[str, Any]] = body["data"]["result"]
    return result


async def value_of(
    session: aiohttp.ClientSession, base: str, promql: str, at_least: float
) -> float:
    """Wait until ``promql`` (one number) is at least ``at_least``; its value."""
    async with asyncio.timeout(WAIT_S):
        while True:
            result = await query(session, base, promql)
            if result and float(result[0]["value"][1]) >= at_least:
                return float(result[0]["value"][1])
            await asyncio.sleep(0.5)


@contextlib.asynccontextmanager
async def running_bot(tmp_path: Path) -> AsyncIterator[tuple[BotProcess, FakeSlack]]:
    async with FakeSlack(bot_token=BOT_TOKEN) as slack, FakeLLMServer() as model:
        model.script(*(statement_reply() for _ in SUBJECTS))
        async with bot_process(slack, model, tmp_path / "data") as bot:
            yield bot, slack


async def mention(
    session: aiohttp.ClientSession, bot: BotProcess, slack: FakeSlack, text: str
) -> None:
    message = f"<@{BOT_USER_ID}> {text}"
    ts = slack.add_message(CHANNEL, message, user=PERSON)["ts"]
    request = slack.payloads.message(message, channel=CHANNEL, user=PERSON, ts=ts)
    async with session.post(
        f"{bot.url}/slack/events", data=request.body, headers=request.headers(SIGNING_SECRET)
    ) as response:
        assert response.status == 200


async def test_prometheus_reads_the_bots_turns_model_calls_and_acks_from_metrics(
    tmp_path: Path,
) -> None:
    binary("prometheus")
    async with running_bot(tmp_path) as (bot, slack), aiohttp.ClientSession() as session:
        target = bot.url.removeprefix("http://")
        with prometheus(target, tmp_path) as base:
            for text in SUBJECTS:
                await mention(session, bot, slack, text)
            await slack.wait_for("chat.postMessage", len(SUBJECTS), timeout=WAIT_S)

            turns = await value_of(session, base, 'sum(fm_turns_total{outcome="answered"})', 2)
            calls = await value_of(session, base, 'sum(fm_llm_calls_total{outcome="ok"})', 2)
            acks = await value_of(
                session, base, 'sum(fm_slack_ack_seconds_count{kind="event:message"})', 2
            )
            tokens = await value_of(session, base, "sum(fm_llm_tokens_total)", 1)
            up = await value_of(session, base, 'up{job="faultmaven"}', 1)
            depth = await query(session, base, "fm_inbox_depth")
            age = await query(session, base, "fm_inbox_oldest_age_seconds")
            series = await query(session, base, '{__name__=~"fm_.+"}')

    assert (turns, acks, up) == (2, 2, 1)
    assert calls >= 2
    assert tokens > 0
    assert depth, "the inbox's depth is scraped"
    assert age, "the age of its oldest item too"
    labels = {value for sample in series for value in sample["metric"].values()}
    for private in (PERSON, "payments", "checkout", "500s"):
        assert not any(private in value for value in labels), (private, labels)
