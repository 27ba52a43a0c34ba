"""Bot latency under load: 50 threads opened at once, a fake model that takes 2 s per reply.

Prints acknowledgement p50/p99 (target p99 < 100 ms), time to the first sign of work (the
thread's status line) p50/p99 (target p99 < 1.5 s) and the bot's own time per turn,
excluding the model (target p50 < 150 ms): under the burst (queueing included, and how much of
it came before the model was asked) and for turns taken one at a time.

The bot runs as shipped, `fm run --http`, in its own process (SQLite, the litellm gateway, the
embedding model and LanceDB), with a knowledge base to search as an installation has one: the
public runbooks (`tests.benchmarks.runbooks`), added with `fm kb ingest`. This process plays
Slack and the model over real HTTP: FakeSlack, the fake OpenAI-compatible server and the signed
event requests. Every time is read here, on one
clock: "the model" is the time the fake server held a request (received → answered), so the
gateway's own work counts as the bot's.

    python -m tests.benchmarks.bot_latency [--smoke]

``--smoke`` runs the same path with a handful of threads and a quick model (for CI: that it runs
to the end and prints every figure, not how fast).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import aiohttp
from aiohttp import web

from tests.benchmarks.model_copy import seed_model_copy
from tests.benchmarks.runbooks import runbooks
from tests.fakes.bot_process import BOT_TOKEN, ROOT, SIGNING_SECRET, bot_process
from tests.fakes.models.llm_server import FakeLLMServer, delayed
from tests.fakes.slack.payloads import SlackRequest
from tests.fakes.slack.samples import next_ts
from tests.fakes.slack.server import FakeSlack
from tests.fakes.slack.state import BOT_USER_ID
from tests.integration.bot.harness import CHANNEL
from tests.integration.bot.replies import STATEMENT

SETTLE_S = 120.0
MENTION = f"<@{BOT_USER_ID}>"
SUBJECT = re.compile(r"service (\d+) is down")
PERSON = "W222"
"""Who mentions the bot (the payload samples' user)."""


@dataclass(frozen=True)
class Sizes:
    """How many threads open at once, how many turns are then taken alone, how slow the model is."""

    threads: int = 50
    alone: int = 10
    model_seconds: float = 2.0


SMOKE = Sizes(threads=5, alone=2, model_seconds=0.2)


class TimedSlack(FakeSlack):
    """FakeSlack noting per thread when its status line first showed and its answer was posted."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.posted: dict[str, float] = {}
        self.replied: dict[str, float] = {}
        self.changed = asyncio.Event()

    async def _record(self, name: str, params: dict[str, Any], status: int, body: Any) -> None:
        at = time.perf_counter()
        thread = str(params.get("thread_ts", ""))
        ok = isinstance(body, dict) and body.get("ok")
        if name == "assistant.threads.setStatus" and ok and params.get("status"):
            self.posted.setdefault(thread, at)
        elif (
            name == "chat.postMessage"
            and ok
            and STATEMENT in str(params.get("text", ""))
            and thread not in self.replied
        ):
            self.replied[thread] = at
            self.changed.set()
        await super()._record(name, params, status, body)


class TimedModel(FakeLLMServer):
    """The fake model, remembering how long it held each request and which thread it was for."""

    def __init__(self) -> None:
        super().__init__()
        self.held: dict[int, float] = {}
        """Subject number ("service N is down") → seconds the model took for it, summed."""
        self.asked: dict[int, float] = {}
        """Subject number → when the model was first asked about it."""

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        received = time.perf_counter()
        subjects = {int(n) for n in SUBJECT.findall(await request.text())}
        for subject in subjects:
            self.asked.setdefault(subject, received)
        try:
            return await super()._handle(request)
        finally:
            for subject in subjects:
                self.held[subject] = self.held.get(subject, 0.0) + time.perf_counter() - received


@dataclass
class Driver:
    """Sends signed events to the bot and reads the fakes' clocks."""

    url: str
    slack: TimedSlack
    model: TimedModel
    session: aiohttp.ClientSession

    def mention(self, n: int, text: str) -> tuple[str, SlackRequest]:
        """ "service n is down" at the top level, signed: its thread ts and the request."""
        ts = next_ts()
        message = f"{MENTION} {text}"
        # Slack has the message before it sends the event: the status line goes under it.
        self.slack.add_message(CHANNEL, message, user=PERSON, ts=ts)
        return ts, self.slack.payloads.message(message, channel=CHANNEL, user=PERSON, ts=ts)

    async def send(self, request: SlackRequest) -> tuple[float, float]:
        """POST it to the bot; when it went out and how long the acknowledgement took.

        The clock starts when the request is on the wire, as Slack's would: fifty requests
        started at once here wait for this one process to write them, which is not the bot's time.
        """
        sent = SimpleNamespace(at=None)
        async with self.session.post(
            f"{self.url}/slack/events",
            data=request.body,
            headers=request.headers(SIGNING_SECRET),
            trace_request_ctx=sent,
        ) as response:
            await response.read()
            assert response.status == 200, response.status
        assert sent.at is not None
        return sent.at, time.perf_counter() - sent.at

    async def answered(self, threads: list[str], seconds: float) -> None:
        """Wait until every thread's answer was posted."""
        async with asyncio.timeout(seconds):
            while not all(ts in self.slack.replied for ts in threads):
                self.slack.changed.clear()
                await self.slack.changed.wait()

    async def quiet(self, seconds: float = 1.0) -> None:
        """Wait until the bot has made no Web API call for ``seconds`` (its turns are over)."""
        calls = -1
        while calls != len(self.slack.calls):
            calls = len(self.slack.calls)
            await asyncio.sleep(seconds)


async def _on_the_wire(_: aiohttp.ClientSession, context: SimpleNamespace, __: object) -> None:
    context.trace_request_ctx.at = time.perf_counter()


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def report(name: str, seconds: list[float], target: str) -> None:
    ms = [s * 1000 for s in seconds]
    print(
        f"{name:<38} p50 {statistics.median(ms):8.1f} ms   p99 {percentile(ms, 0.99):8.1f} ms"
        f"   ({target})"
    )


async def run(data_dir: Path, sizes: Sizes) -> None:
    reply = {
        "agent_response": f"Let me confirm: *{STATEMENT}*.",
        "state_updates": {
            "problem_confirmation": {"problem_type": "error", "severity_guess": "HIGH"},
            "proposed_problem_statement": STATEMENT,
        },
        "citations": [],
    }
    knowledge_base(data_dir)
    slack, model = TimedSlack(bot_token=BOT_TOKEN), TimedModel()
    async with slack, model:
        turns = sizes.threads + sizes.alone + 1
        model.script(*(delayed(reply, sizes.model_seconds) for _ in range(turns)))
        tracing = aiohttp.TraceConfig()
        tracing.on_request_headers_sent.append(_on_the_wire)
        async with (
            bot_process(slack, model, data_dir) as bot,
            aiohttp.ClientSession(trace_configs=[tracing]) as session,
        ):
            driver = Driver(bot.url, slack, model, session)
            # One case first, so the bot's first connections and lazy imports are not measured.
            await alone(driver, sizes.threads + sizes.alone)
            await measure(driver, sizes)
            overhead = [await alone(driver, sizes.threads + n) for n in range(sizes.alone)]
            report("bot overhead per turn, one at a time", overhead, "without queueing")


def knowledge_base(data_dir: Path) -> None:
    """`fm kb ingest` the public runbooks into the bot's data directory."""
    personal, workspace = runbooks()
    seed_model_copy(data_dir)
    fm = str(Path(sys.executable).with_name("fm"))
    environment = {**os.environ, "FM_DATA_DIR": str(data_dir), "FM_LOG_LEVEL": "WARNING"}
    for kb, chosen in (("global", workspace), (f"user:{PERSON}", personal)):
        subprocess.run(
            [fm, "kb", "ingest", *map(str, chosen), "--kb", kb],
            check=True,
            env=environment,
            cwd=ROOT,
            stdout=subprocess.DEVNULL,
        )


async def measure(driver: Driver, sizes: Sizes) -> None:
    subjects = list(range(sizes.threads))
    # Built and signed beforehand: the time measured is the bot's, not this driver's.
    mentions = [driver.mention(n, f"service {n} is down") for n in subjects]
    began = time.perf_counter()
    sent = await asyncio.gather(*(driver.send(request) for _, request in mentions))
    threads = [ts for ts, _ in mentions]
    await driver.answered(threads, SETTLE_S)
    wall = time.perf_counter() - began
    slack, held = driver.slack, driver.model.held
    to_status = [slack.posted[ts] - started for ts, (started, _) in zip(threads, sent, strict=True)]
    overhead = [
        slack.replied[ts] - started - held[n]
        for n, ts, (started, _) in zip(subjects, threads, sent, strict=True)
    ]
    to_model = [
        driver.model.asked[n] - started for n, (started, _) in zip(subjects, sent, strict=True)
    ]
    print(f"{sizes.threads} threads at once, model {sizes.model_seconds:g} s per reply: ", end="")
    print(f"all answered in {wall:.1f} s")
    report("acknowledgement", [ack for _, ack in sent], "target p99 < 100 ms")
    report("time to the status line", to_status, "target p99 < 1500 ms")
    report("bot overhead per turn (no model)", overhead, "target p50 < 150 ms")
    report("  of which before the model call", to_model, "opening, retrieval, prompt")
    await driver.quiet()


async def alone(driver: Driver, n: int) -> float:
    """One turn with nothing else going on; the bot's time in it, excluding the model."""
    ts, request = driver.mention(n, f"service {n} is down, alone")
    started, _ = await driver.send(request)
    await driver.answered([ts], SETTLE_S)
    await driver.quiet(0.3)
    return driver.slack.replied[ts] - started - driver.model.held[n]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--smoke", action="store_true", help="small sizes: that it runs")
    sizes = SMOKE if parser.parse_args().smoke else Sizes()
    with tempfile.TemporaryDirectory(prefix="fm-bench-bot-") as directory:
        asyncio.run(run(Path(directory), sizes))


if __name__ == "__main__":
    main()
