"""Bot latency under load: 50 threads opened at once, a fake model that takes 2 s per reply.

Prints acknowledgement p50/p99 (target p99 < 100 ms), time to placeholder p50/p99 (target
p99 < 1.5 s) and the bot's own time per turn, excluding the model (target p50 < 150 ms): under
the burst (queueing included) and for turns taken one at a time. Everything runs over real HTTP
in one process: FakeSlack, the fake OpenAI-compatible server, the real app on SQLite.

    python -m tests.benchmarks.bot_latency
"""

from __future__ import annotations

import asyncio
import statistics
import tempfile
import time
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel

from domain.llm import ChatMessage, ModelTier
from tests.fakes.gateway import gateway_for
from tests.fakes.knowledge import FakeKnowledge
from tests.fakes.llm_server import FakeLLMServer, delayed
from tests.fakes.slack_samples import next_ts
from tests.fakes.slack_server import FakeSlack
from tests.integration.bot.harness import CHANNEL, MENTION, BotHarness
from tests.integration.bot.replies import STATEMENT

PLACEHOLDER = "Looking at this"
THREADS = 50
ALONE = 10
MODEL_SECONDS = 2.0
ReplyT = TypeVar("ReplyT", bound=BaseModel)


class TimedSlack(FakeSlack):
    """FakeSlack that remembers when each call was answered."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.timeline: list[tuple[float, str, dict[str, Any]]] = []

    async def _record(self, name: str, params: dict[str, Any], status: int, body: Any) -> None:
        self.timeline.append((time.perf_counter(), name, params))
        await super()._record(name, params, status, body)


@dataclass
class TimedLLM:
    """Wraps the real gateway; adds up the time each case spends waiting for the model."""

    inner: Any
    spent: dict[str, float] = field(default_factory=lambda: defaultdict(float))

    @property
    def enabled(self) -> bool:
        return bool(self.inner.enabled)

    async def structured(
        self,
        *,
        tier: ModelTier,
        messages: Sequence[ChatMessage],
        schema: type[ReplyT],
        template: str,
        template_hash: str,
        case_id: str | None = None,
    ) -> ReplyT:
        started = time.perf_counter()
        try:
            reply: ReplyT = await self.inner.structured(
                tier=tier,
                messages=messages,
                schema=schema,
                template=template,
                template_hash=template_hash,
                case_id=case_id,
            )
            return reply
        finally:
            self.spent[case_id or ""] += time.perf_counter() - started

    async def text(self, **kwargs: Any) -> str:
        return str(await self.inner.text(**kwargs))


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
    async with TimedSlack(bot_token="xoxb-test") as slack, FakeLLMServer() as llm:
        llm.script(*(delayed(reply, MODEL_SECONDS) for _ in range(THREADS + ALONE + 1)))
        timed = TimedLLM(gateway_for(llm, timeout_s=30.0).gateway)
        bot = await BotHarness.start(slack, llm, data_dir, knowledge=FakeKnowledge(), llm=timed)
        try:
            await warm_up(bot)
            await measure(bot, slack, timed)
            await measure_alone(bot, timed)
        finally:
            await bot.stop()


async def warm_up(bot: BotHarness) -> None:
    """One case first, so imports and first connections are not measured."""
    await bot.mention("warm-up")


async def send(bot: BotHarness, ts: str, n: int) -> tuple[float, float]:
    request = bot.slack.payloads.message(f"{MENTION} service {n} is down", channel=CHANNEL, ts=ts)
    started = time.perf_counter()
    status, _ = await bot.send(request)
    assert status == 200
    return started, time.perf_counter() - started


async def measure(bot: BotHarness, slack: TimedSlack, timed: TimedLLM) -> None:
    threads = [next_ts() for _ in range(THREADS)]
    began = time.perf_counter()
    sent = await asyncio.gather(*(send(bot, ts, n) for n, ts in enumerate(threads)))
    await bot.settle(expect=THREADS, seconds=120)
    wall = time.perf_counter() - began
    placeholders, replies = first_placeholder_and_reply(slack)
    to_placeholder = [
        placeholders[ts] - started for ts, (started, _) in zip(threads, sent, strict=True)
    ]
    overhead = []
    for ts, (started, _) in zip(threads, sent, strict=True):
        case = await bot.case(ts)
        overhead.append(replies[ts] - started - timed.spent[case.case_id])
    print(
        f"{THREADS} threads at once, model {MODEL_SECONDS:.0f} s per reply: all answered in", end=""
    )
    print(f" {wall:.1f} s")
    report("acknowledgement", [ack for _, ack in sent], "target p99 < 100 ms")
    report("time to placeholder", to_placeholder, "target p99 < 1500 ms")
    report("bot overhead per turn (no model)", overhead, "target p50 < 150 ms")


async def measure_alone(bot: BotHarness, timed: TimedLLM) -> None:
    """The same turn with nothing else going on."""
    overhead = []
    for n in range(ALONE):
        started = time.perf_counter()
        thread_ts = await bot.mention(f"service {n} is down, alone")
        case = await bot.case(thread_ts)
        overhead.append(time.perf_counter() - started - timed.spent[case.case_id])
    report("bot overhead per turn, one at a time", overhead, "same target, without queueing")


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
    with tempfile.TemporaryDirectory() as directory:
        asyncio.run(run(Path(directory)))


if __name__ == "__main__":
    main()
