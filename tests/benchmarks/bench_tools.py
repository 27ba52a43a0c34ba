"""What a tool round adds to a turn, beyond the tool's own time (target: < 200 ms).

One case is driven through the real app (`BotHarness`: FakeSlack and the fake model over real
HTTP, SQLite, the litellm gateway) with a trusted MCP server, the in-repo fake one
(`tests/fakes/mcp_server.py`, over stdio), whose `echo` answers at once, and a scripted model
that answers at once. Turns alternate: a person writes and the answer asks for nothing, or the
answer asks for one `echo` run, which runs at once (trusted), is kept as case evidence, and is
read by the turn that follows. Each turn is timed from the signed event sent to the worker idle
again. The overhead of a round is (turn with a round − the median turn without − the call's
own duration as the hub audited it); it includes the second turn that reads the result, the
model aside.

    python -m tests.benchmarks.bench_tools [--smoke]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from bot.mcp import McpHub
from domain.tools import parse_config
from domain.tools.runs import ToolRunStatus
from tests.fakes.knowledge import FakeKnowledge
from tests.fakes.models.llm_server import FakeLLMServer
from tests.fakes.slack.server import FakeSlack
from tests.integration.bot.harness import BOT_TOKEN, BotHarness, eventually, with_buttons
from tests.integration.bot.replies import chat_reply, statement_reply
from tests.paths import REPO_ROOT

TARGET_MS = 200.0
WARM_UP = 2
"""Pairs of turns first, not measured: first connections, lazy imports, the first tool call."""


@dataclass(frozen=True)
class Sizes:
    """How many turns of each kind are measured."""

    turns: int = 40


SMOKE = Sizes(turns=4)


def trusted_fake_tools() -> McpHub:
    entry = {
        "command": sys.executable,
        "args": ["-m", "tests.fakes.mcp_server"],
        "cwd": str(REPO_ROOT),
        "includeTools": ["echo"],
        "timeout": 5_000,
        "trust": True,
    }
    return McpHub(parse_config({"mcpServers": {"fake": entry}}, {}))


async def investigating(bot: BotHarness) -> str:
    """A case whose problem statement is confirmed: its prompt offers the tools."""
    thread_ts = await bot.mention("checkout-api answers 502s", statement_reply())
    (question,) = with_buttons(bot.bot_messages(thread_ts), "fm_answer")
    bot.llm.script(chat_reply("Investigating."))  # the turn the confirmation starts
    await bot.click(question, decision="yes")
    return thread_ts


async def plain_turn(bot: BotHarness, thread_ts: str, n: int) -> float:
    """Seconds for a turn whose answer asks for no tool."""
    started = time.perf_counter()
    await bot.reply(thread_ts, f"still failing ({n})", chat_reply(f"Noted, {n}."))
    return time.perf_counter() - started


async def tool_turn(bot: BotHarness, thread_ts: str, n: int) -> tuple[float, float]:
    """Seconds for a turn whose answer asks for one trusted run, and the call's own seconds."""
    request = {
        "name": "fake__echo",
        "arguments": json.dumps({"text": f"5xx rate 0.{n:03d}"}),
        "reason": "the error rate now",
    }
    asking = chat_reply("Reading the error rate.", tool_requests=[request])
    started = time.perf_counter()
    await bot.reply(thread_ts, f"what is the rate now? ({n})", asking, chat_reply(f"Read, {n}."))
    took = time.perf_counter() - started
    run = (await bot.case(thread_ts)).tool_runs[-1]
    assert run.status is ToolRunStatus.RAN, run
    assert run.record is not None, run
    assert run.outcome is not None, run
    assert run.outcome.value == "ok", run.sentence
    return took, run.record.duration_ms / 1000


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


async def run(data_dir: Path, sizes: Sizes) -> None:
    tools = trusted_fake_tools()
    async with FakeSlack(bot_token=BOT_TOKEN) as slack, FakeLLMServer() as llm:
        bot = await BotHarness.start(slack, llm, data_dir, knowledge=FakeKnowledge(), tools=tools)
        try:
            await eventually(lambda: bool(tools.catalogue()), seconds=60)
            thread_ts = await investigating(bot)
            for n in range(WARM_UP):
                await plain_turn(bot, thread_ts, n)
                await tool_turn(bot, thread_ts, n)
            plain, rounds, calls = [], [], []
            for n in range(WARM_UP, WARM_UP + sizes.turns):
                plain.append(await plain_turn(bot, thread_ts, n))
                took, call = await tool_turn(bot, thread_ts, n)
                rounds.append(took)
                calls.append(call)
        finally:
            await bot.stop()
    report(plain, rounds, calls)


def report(plain: list[float], rounds: list[float], calls: list[float]) -> None:
    base = statistics.median(plain)
    overhead = [(took - base - call) * 1000 for took, call in zip(rounds, calls, strict=True)]
    median = statistics.median(overhead)
    verdict = "meets" if median < TARGET_MS else "misses"
    ms = [t * 1000 for t in plain]
    print(f"a trusted tool round, instant tool and model ({len(rounds)} turns of each kind):")
    print(
        f"  {'turn without a tool round':<34} p50 {statistics.median(ms):7.1f} ms"
        f"   p95 {percentile(ms, 0.95):7.1f} ms"
    )
    with_round = [t * 1000 for t in rounds]
    print(
        f"  {'turn with a trusted tool round':<34} p50 {statistics.median(with_round):7.1f} ms"
        f"   p95 {percentile(with_round, 0.95):7.1f} ms"
    )
    print(f"  {'the tool call itself (audited)':<34} p50 {statistics.median(calls) * 1000:7.1f} ms")
    print(
        f"  {'tool round overhead per turn':<34} p50 {median:7.1f} ms"
        f"   p95 {percentile(overhead, 0.95):7.1f} ms   ({verdict} p50 < {TARGET_MS:g} ms)"
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--smoke", action="store_true", help="small sizes: that it runs")
    sizes = SMOKE if parser.parse_args().smoke else Sizes()
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    with tempfile.TemporaryDirectory(prefix="fm-bench-tools-") as directory:
        asyncio.run(run(Path(directory), sizes))


if __name__ == "__main__":
    main()
