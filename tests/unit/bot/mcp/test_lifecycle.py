"""Servers start once and are kept; a crashed one starts again; one failing leaves the others."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import sys
import time

import pytest

from bot.mcp import McpHub
from domain.tools import ToolOutcome, parse_config
from tests.paths import REPO_ROOT
from tests.unit.bot.mcp.conftest import fake_server, hub_of


async def pid(hub: McpHub) -> int:
    result = await hub.call(server="fake", tool="whoami", arguments={})
    assert result.outcome is ToolOutcome.OK, result.sentence
    return int(json.loads(result.text)["pid"])


async def test_a_crashed_server_is_started_again_on_the_next_call() -> None:
    hub = hub_of({"fake": fake_server()})
    await hub.start()
    try:
        first = await pid(hub)
        assert await pid(hub) == first  # kept, not started per call

        crashed = await hub.call(server="fake", tool="crash", arguments={})

        assert crashed.outcome is ToolOutcome.ERROR
        assert "the server stopped while answering" in crashed.sentence
        assert await pid(hub) != first
    finally:
        await hub.aclose()


async def test_a_server_that_cannot_start_leaves_the_others_working() -> None:
    dying = {
        "command": sys.executable,
        "args": ["-c", "import sys; sys.stderr.write('PROMETHEUS_URL is not set\\n'); sys.exit(1)"],
        "includeTools": ["execute_query"],
    }
    hub = hub_of(
        {
            "fake": fake_server(),
            "missing": {"command": "no-such-mcp-server-here", "includeTools": ["q"]},
            "dying": dying,
        }
    )
    await hub.start()
    try:
        statuses = {status.name: status for status in hub.status()}
        assert statuses["fake"].running
        assert statuses["missing"].detail == (
            "server 'missing' cannot start: 'no-such-mcp-server-here' was not found"
        )
        assert statuses["dying"].detail == (
            "server 'dying' stopped while starting (it said: PROMETHEUS_URL is not set)"
        )
        assert [spec.server for spec in hub.catalogue()] == ["fake"] * len(hub.catalogue())

        refused = await hub.call(server="dying", tool="execute_query", arguments={"query": "up"})

        assert refused.outcome is ToolOutcome.ERROR
        assert refused.sentence.startswith("dying execute_query was not run: server 'dying'")
        assert (await hub.call(server="fake", tool="echo", arguments={"text": "ok"})).text == "ok"
    finally:
        await hub.aclose()


@pytest.mark.slow  # the fake server makes and sends 50 MB: about ten seconds of two processes
async def test_fifty_megabytes_are_one_sentence_never_an_exception() -> None:
    hub = hub_of({"fake": fake_server(timeout=5_000)})
    await hub.start()
    try:
        result = await hub.call(server="fake", tool="huge", arguments={"megabytes": 50})

        assert result.sentence in (
            "fake huge did not answer within 5 s.",
            "fake huge answered (cut to the first part).",
        )
        assert result.record.kept_bytes <= 64 * 1024 + 100
    finally:
        await hub.aclose()


async def test_a_hub_without_servers_offers_nothing() -> None:
    hub = hub_of({})
    await hub.start()

    assert hub.catalogue() == []
    assert (await hub.call(server="x", tool="y", arguments={})).outcome is ToolOutcome.REFUSED
    await hub.aclose()


async def test_a_remote_server_is_reached_over_streamable_http() -> None:
    port = free_port()
    process = await asyncio.create_subprocess_exec(
        *[sys.executable, "-m", "tests.fakes.mcp_server", "--http", str(port)],
        cwd=REPO_ROOT,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.DEVNULL,
    )
    try:
        await wait_for_port(port)
        remote = {
            "url": f"http://127.0.0.1:{port}/mcp",
            "headers": {"Authorization": "Bearer ${TOKEN}"},
            "includeTools": ["echo"],
        }
        hub = hub_of({"remote": remote}, {"TOKEN": "s3cr3t-token-value"})
        await hub.start()
        try:
            assert [spec.name for spec in hub.catalogue()] == ["remote__echo"]
            result = await hub.call(server="remote", tool="echo", arguments={"text": "over http"})
            assert result.text == "over http"
        finally:
            await hub.aclose()
    finally:
        process.terminate()
        await asyncio.wait_for(process.wait(), 10)


async def test_a_remote_server_that_does_not_answer_is_one_sentence() -> None:
    hub = hub_of({"remote": {"url": f"http://127.0.0.1:{free_port()}/mcp", "includeTools": ["q"]}})
    await hub.start()

    [status] = hub.status()

    assert not status.running
    assert status.detail.startswith("server 'remote' cannot be reached at http://127.0.0.1:")
    await hub.aclose()


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


async def wait_for_port(port: int, timeout_s: float = 30.0) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            _, writer = await asyncio.open_connection("127.0.0.1", port)
        except OSError:
            await asyncio.sleep(0.1)
            continue
        writer.close()
        await writer.wait_closed()
        return
    raise AssertionError(f"nothing listens on {port}")


async def test_a_server_that_never_answers_is_given_up_on_after_the_start_timeout() -> None:
    silent = {
        "command": sys.executable,
        "args": ["-c", "import time; time.sleep(60)"],
        "includeTools": ["q"],
    }
    config = parse_config({"mcpServers": {"silent": silent}}, {})
    hub = McpHub(config, start_timeout_s=1.0)
    started = time.monotonic()
    await hub.start()

    [status] = hub.status()
    result = await hub.call(server="silent", tool="q", arguments={})

    assert status.detail == "server 'silent' did not answer within 1 s of starting"
    assert (
        result.sentence
        == "silent q was not run: server 'silent' did not answer within 1 s of starting."
    )
    assert time.monotonic() - started < 15
    await hub.aclose()


async def test_a_server_that_died_while_idle_is_started_again_before_the_next_call() -> None:
    hub = hub_of({"fake": fake_server()})
    await hub.start()
    try:
        first = await pid(hub)
        os.kill(first, signal.SIGKILL)
        for _ in range(50):
            if not hub.status()[0].running:
                break
            await asyncio.sleep(0.1)

        assert not hub.status()[0].running
        assert await pid(hub) != first
    finally:
        await hub.aclose()


async def test_tools_outside_the_allowlist_are_refused_without_starting_the_server() -> None:
    server = {"command": "no-such-mcp-server", "includeTools": ["q", "r"], "excludeTools": ["r"]}
    hub = hub_of({"s": server})

    outside = await hub.call(server="s", tool="p", arguments={})
    excluded = await hub.call(server="s", tool="r", arguments={})

    assert (outside.outcome, outside.sentence) == (
        ToolOutcome.REFUSED,
        "s p is not in includeTools.",
    )
    assert (excluded.outcome, excluded.sentence) == (ToolOutcome.REFUSED, "s r is in excludeTools.")
    assert hub.status()[0].detail == "not started yet"
    await hub.aclose()
