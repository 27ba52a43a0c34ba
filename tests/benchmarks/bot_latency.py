"""Bot latency under load: 50 threads opened at once, a fake model that takes 2 s per reply.

Prints acknowledgement p50/p99 (target p99 < 100 ms), time to placeholder p50/p99 (target
p99 < 1.5 s) and the bot's own time per turn, excluding the model (target p50 < 150 ms): under
the burst (queueing included) and for turns taken one at a time.

The bot runs as shipped, `fm run --http`, in its own process (SQLite, the litellm gateway, the
embedding model and LanceDB); this process plays Slack and the model over real HTTP: FakeSlack,
the fake OpenAI-compatible server and the signed event requests. Every time is read here, on one
clock: "the model" is the time the fake server held a request (received → answered), so the
gateway's own work counts as the bot's.

    python -m tests.benchmarks.bot_latency
"""

from __future__ import annotations

import asyncio
import re
import statistics
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aiohttp
from aiohttp import web

from tests.fakes.bot_process import BOT_TOKEN, SIGNING_SECRET, bot_process
from tests.fakes.llm_server import FakeLLMServer, delayed
from tests.fakes.slack_samples import next_ts
from tests.fakes.slack_server import FakeSlack
from tests.fakes.slack_state import BOT_USER_ID
from tests.integration.bot.harness import CHANNEL
from tests.integration.bot.replies import STATEMENT

PLACEHOLDER = "Looking at this"
THREADS = 50
ALONE = 10
MODEL_SECONDS = 2.0
SETTLE_S = 120.0
MENTION = f"<@{BOT_USER_ID}>"
SUBJECT = re.compile(r"service (\d+) is down")


class TimedSlack(FakeSlack):
    """FakeSlack that remembers when each call was answered."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.timeline: list[tuple[float, str, dict[str, Any]]] = []
        self.changed = asyncio.Event()

    async def _record(self, name: str, params: dict[str, Any], status: int, body: Any) -> None:
        self.timeline.append((time.perf_counter(), name, params))
        await super()._record(name, params, status, body)
        self.changed.set()


class TimedModel(FakeLLMServer):
    """The fake model, remembering how long it held each request and which thread it was for."""

    def __init__(self) -> None:
        super().__init__()
        self.held: dict[int, float] = {}
        """Subject number ("service N is down") → seconds the model took for it, summed."""

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        received = time.perf_counter()
        subjects = {int(n) for n in SUBJECT.findall(await request.text())}
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

    async def mention(self, n: int, text: str) -> tuple[str, float, float]:
        """Post "service n is down" at the top level; return thread ts, sent at, ack seconds."""
        ts = next_ts()
        request = self.slack.payloads.message(f"{MENTION} {text}", channel=CHANNEL, ts=ts)
        started = time.perf_counter()
        async with self.session.post(
            f"{self.url}/slack/events", data=request.body, headers=request.headers(SIGNING_SECRET)
        ) as response:
            await response.read()
            assert response.status == 200, response.status
        return ts, started, time.perf_counter() - started

    async def answered(self, threads: list[str], seconds: float) -> dict[str, float]:
        """Wait until every thread's placeholder was replaced by a reply; when each was."""
        async with asyncio.timeout(seconds):
            while True:
                self.slack.changed.clear()
                _, replies = first_placeholder_and_reply(self.slack)
                if all(ts in replies for ts in threads):
                    return replies
                await self.slack.changed.wait()


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def report(name: str, seconds: list[float], target: str) -> None:
    ms = [s * 1000 for s in seconds]
    print(
        f"{name:<38} p50 {statistics.median(ms):8.1f} ms   p99 {percentile(ms, 0.99):8.1f} ms"
        f"   ({target})"
    )


async def run(data_dir: Path) -> None:
    reply = {
        "agent_response": f"Let me confirm: *{STATEMENT}*.",
        "state_updates": {
            "problem_confirmation": {"problem_type": "error", "severity_guess": "HIGH"},
            "proposed_problem_statement": STATEMENT,
        },
        "citations": [],
    }
    slack, model = TimedSlack(bot_token=BOT_TOKEN), TimedModel()
    async with slack, model:
        model.script(*(delayed(reply, MODEL_SECONDS) for _ in range(THREADS + ALONE + 1)))
        async with bot_process(slack, model, data_dir) as bot, aiohttp.ClientSession() as session:
            driver = Driver(bot.url, slack, model, session)
            # One case first, so the bot's first connections and lazy imports are not measured.
            await alone(driver, THREADS + ALONE)
            await measure(driver)
            overhead = [await alone(driver, THREADS + n) for n in range(ALONE)]
            report("bot overhead per turn, one at a time", overhead, "without queueing")


async def measure(driver: Driver) -> None:
    subjects = list(range(THREADS))
    began = time.perf_counter()
    sent = await asyncio.gather(*(driver.mention(n, f"service {n} is down") for n in subjects))
    replies = await driver.answered([ts for ts, _, _ in sent], SETTLE_S)
    wall = time.perf_counter() - began
    placeholders, _ = first_placeholder_and_reply(driver.slack)
    to_placeholder = [placeholders[ts] - started for ts, started, _ in sent]
    overhead = [
        replies[ts] - started - driver.model.held[n]
        for n, (ts, started, _) in zip(subjects, sent, strict=True)
    ]
    print(f"{THREADS} threads at once, model {MODEL_SECONDS:.0f} s per reply: ", end="")
    print(f"all answered in {wall:.1f} s")
    report("acknowledgement", [ack for _, _, ack in sent], "target p99 < 100 ms")
    report("time to placeholder", to_placeholder, "target p99 < 1500 ms")
    report("bot overhead per turn (no model)", overhead, "target p50 < 150 ms")


async def alone(driver: Driver, n: int) -> float:
    """One turn with nothing else going on; the bot's time in it, excluding the model."""
    ts, started, _ = await driver.mention(n, f"service {n} is down, alone")
    replies = await driver.answered([ts], SETTLE_S)
    return replies[ts] - started - driver.model.held[n]


def first_placeholder_and_reply(slack: TimedSlack) -> tuple[dict[str, float], dict[str, float]]:
    """Per thread: when its placeholder was posted, and when the reply replaced it."""
    placeholder_thread: dict[str, str] = {}
    for call, answer in zip(slack.calls, slack.replies, strict=True):
        if call.method == "chat.postMessage" and PLACEHOLDER in str(call.params.get("text")):
            placeholder_thread[answer.body["ts"]] = str(call.params["thread_ts"])
    posted: dict[str, float] = {}
    replied: dict[str, float] = {}
    for at, name, params in slack.timeline:
        text = str(params.get("text", ""))
        if name == "chat.postMessage" and PLACEHOLDER in text:
            posted.setdefault(str(params["thread_ts"]), at)
        elif name == "chat.update" and PLACEHOLDER not in text:
            thread = placeholder_thread.get(str(params.get("ts")))
            if thread is not None:
                replied.setdefault(thread, at)
    return posted, replied


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="fm-bench-bot-") as directory:
        asyncio.run(run(Path(directory)))


if __name__ == "__main__":
    main()
