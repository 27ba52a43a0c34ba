"""Start-up timeline of `fm run --http`: process start → healthy → ready, and the acks meanwhile.

The bot is started twice as its own process against FakeSlack and a fake model that answers at
once, with a knowledge base to search (the public runbooks, added with `fm kb ingest`, which also
makes the embedding model's ONNX copy, as for a user):

* a restart: the same data directory, so the model's copy is there;
* a new replica: an empty data directory (no copy: it is made first, in a child process) on the
  same knowledge base, as a new pod with a shared LanceDB starts.

From the second the bot listens, the start-up test's traffic goes out (a mention, an Alertmanager
notification, `/fm status` or a click on Close every 250 ms, `/healthz` and `/readyz` alongside)
until it is ready and for at least 15 s. Printed per start: when it listened and answered
`/healthz`, when litellm and the embedding model were loaded and `/readyz` said ready (seconds
after the process started), the worst acknowledgement and health check while it was warming up,
and how soon mentions showed their case and were answered.

    python -m tests.benchmarks.bot_start [--smoke]

``--smoke`` sends the traffic for 3 s instead of 15 (that it runs, not how fast).
"""

from __future__ import annotations

import asyncio
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import aiohttp

from bot.wiring.readiness import EMBEDDING_MODEL, LLM
from tests.benchmarks.bench_startup import FM, environment
from tests.benchmarks.model_copy import seed_model_copy
from tests.benchmarks.runbooks import runbooks
from tests.fakes.bot_process import BOT_TOKEN, ROOT, bot_process
from tests.fakes.slack.server import FakeSlack
from tests.integration.bot.replicas.start_up_traffic import (
    ALERT_CHANNEL,
    ALERT_TOKEN,
    DURATION_S,
    PERIOD_S,
    AnsweringModel,
    Traffic,
)

READY_WAIT_S = 120.0
SETTLE_S = 120.0
SMOKE_DURATION_S = 3.0


@dataclass(frozen=True)
class Start:
    """One start: seconds after the process started, and what the traffic saw."""

    name: str
    listening_s: float
    traffic: Traffic

    def at(self, part: str) -> float:
        """When ``part`` of the warm-up was first seen ready, after the process started."""
        return self.listening_s + self.traffic.ready_at.get(part, float("nan"))


async def started(name: str, data_dir: Path, duration_s: float, **env: str) -> Start:
    """Start the bot, send the traffic until it is ready (15 s at least), wait for the answers."""
    async with (
        FakeSlack(bot_token=BOT_TOKEN) as slack,
        AnsweringModel() as model,
        aiohttp.ClientSession() as session,
    ):
        spawned = time.monotonic()
        settings = {"FM_ALERT_TOKEN": ALERT_TOKEN, **env}
        async with bot_process(
            slack, model, data_dir, FM_ALERT_CHANNEL=ALERT_CHANNEL, **settings
        ) as bot:
            traffic = Traffic(slack, session, bot)
            listening = traffic.started - spawned
            await traffic.run(duration_s)
            await _until_ready(traffic)
            await traffic.settle(SETTLE_S)
            await bot.stop()
    return Start(name, listening, traffic)


async def _until_ready(traffic: Traffic) -> None:
    async with asyncio.timeout(READY_WAIT_S):
        while "ready" not in traffic.ready_at:
            await traffic.check_health()
            await asyncio.sleep(PERIOD_S)


def ingest(data_dir: Path) -> None:
    """The runbooks into `data_dir`'s knowledge base (and the model's copy into it)."""
    personal, shared = runbooks()
    seed_model_copy(data_dir)
    for kb, files in (("global", shared), ("user:W222", personal)):
        command = [FM, "kb", "ingest", "--kb", kb, *map(str, files)]
        env = environment(data_dir)
        subprocess.run(command, env=env, cwd=ROOT, check=True, capture_output=True)


def report(start: Start) -> None:
    """Print one start's timeline and what Slack saw while it warmed up."""
    traffic = start.traffic
    ready = traffic.ready_at["ready"]
    warming = [ack.seconds for ack in traffic.acks if ack.sent_at < ready]
    health = [ack.seconds for ack in traffic.health if ack.sent_at < ready]
    shown = [(m.shown_at or 0.0) - m.sent_at for m in traffic.mentions]
    answered = [(m.answered_at or 0.0) - m.sent_at for m in traffic.mentions]
    print(f"{start.name}:")
    print(
        f"  process start → listening, /healthz 200 {start.listening_s:5.1f} s"
        f" → litellm {start.at(LLM):5.1f} s → embedding model {start.at(EMBEDDING_MODEL):5.1f} s"
        f" → /readyz 200 {start.at('ready'):5.1f} s"
    )
    print(
        f"  while warming up: {len(warming)} requests acknowledged, worst {max(warming) * 1e3:.0f}"
        f" ms, p50 {statistics.median(warming) * 1e3:.0f} ms; worst /healthz"
        f" {max(health) * 1e3:.0f} ms"
    )
    print(
        f"  mentions: case shown after worst {max(shown):.2f} s; answered after median"
        f" {statistics.median(answered):.1f} s, worst {max(answered):.1f} s"
    )


async def measure(duration_s: float) -> list[Start]:
    """A restart and a new replica on the same knowledge base."""
    with tempfile.TemporaryDirectory(prefix="fm-bench-start-up-") as folder:
        first, second = Path(folder) / "restarted", Path(folder) / "new"
        ingest(first)
        restart = await started(
            "restart (the model's copy in the data directory)", first, duration_s
        )
        lancedb = str(first / "lancedb")
        fresh = await started(
            "new replica (no copy yet: made first; same knowledge base)",
            second,
            duration_s,
            FM_LANCEDB_URI=lancedb,
        )
    return [restart, fresh]


def main() -> None:
    """Measure both starts and print their timelines."""
    duration_s = SMOKE_DURATION_S if sys.argv[1:] == ["--smoke"] else DURATION_S
    print(
        f"start-up: a request every {PERIOD_S * 1e3:.0f} ms from the first second, for at least"
        f" {duration_s:.0f} s (ack target < 1 s, p99 < 300 ms)"
    )
    for start in asyncio.run(measure(duration_s)):
        report(start)


if __name__ == "__main__":
    main()
