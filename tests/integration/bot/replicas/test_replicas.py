"""Two live replicas: `fm run --http` twice, one PostgreSQL database, one LanceDB on S3 (moto).

Thirty threads are opened across both replicas (a load balancer sends Slack's signed requests to
either); they share logs, click Yes and talk. In the last round one replica is killed with
SIGKILL while the model is still thinking about its turns. Every turn must then be answered
exactly once, no inbox item lost, a log read by one replica cited by the other, and the dead
replica's items taken over by the survivor within FM_WORKER_STALE_AFTER_S plus one heartbeat.
The second test shows the first would fail without the survivor resuming that work.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import time
from collections import Counter
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import aiohttp
import pytest

from bot.worker.worker import HEARTBEATS_PER_STALE
from rag.store.connection import READ_CONSISTENCY
from tests.fakes.bot_process import BOT_TOKEN
from tests.fakes.object_store import S3Bucket, S3Server
from tests.fakes.slack.server import FakeSlack
from tests.integration.bot.harness import text_of
from tests.integration.bot.replicas.replica_model import ReplicaModel
from tests.integration.bot.replicas.replica_threads import (
    FIRST_ERROR_LINE,
    LOG_LINES,
    POSTS,
    WARM_UP_CHANNEL,
    Thread,
    answered,
    bot_messages,
    model_answers,
    request_for,
)
from tests.integration.bot.replicas.replicas import (
    POSTGRES_URL,
    Inbox,
    LoadBalancer,
    owner_name,
    replica_name,
    replicas,
    scratch_database,
)

pytestmark = [
    pytest.mark.slow,
    pytest.mark.postgres,
    pytest.mark.skipif(not POSTGRES_URL, reason="needs FM_TEST_DATABASE_URL (PostgreSQL)"),
]

STALE_AFTER_S = 10.0
"""A few seconds, yet well above the event-loop pauses of a replica on a loaded 2-core machine
(a replica that pauses longer than this less one heartbeat would lose its turns to the other)."""
HEARTBEAT_S = STALE_AFTER_S / HEARTBEATS_PER_STALE
TAKE_OVER_S = STALE_AFTER_S + HEARTBEAT_S
"""The documented bound: a killed replica's items are taken over this soon after it died."""
OBSERVED_S = 1.0
"""What observing a takeover adds: polling the inbox, the survivor's loop on a loaded machine."""
NEVER_S = 3600.0
ROUND_S = 120.0
"""A round's answers (the first waits for both replicas to load the embedding model)."""
SURVIVOR, VICTIM = 0, 1


@pytest.fixture(scope="module")
def s3(tmp_path_factory: pytest.TempPathFactory) -> Iterator[S3Server]:
    """The object store both replicas keep LanceDB in: a local S3 server; a bucket per test."""
    with S3Server.running(tmp_path_factory.mktemp("s3")) as server:
        yield server


@dataclass
class Run:
    """The fakes, the replicas behind the load balancer, the shared inbox and the threads."""

    slack: FakeSlack
    model: ReplicaModel
    balancer: LoadBalancer
    inbox: Inbox
    root: Path
    threads: list[Thread] = field(default_factory=list)

    async def take(self, step: int, threads: Sequence[Thread] | None = None) -> None:
        """The threads (all by default) take ``step`` at once, each through its replica."""
        await asyncio.gather(
            *(
                self.balancer.send(request_for(self.slack, t, step), prefer=t.replica(step))
                for t in (self.threads if threads is None else threads)
            )
        )

    async def answers(self, step: int, threads: Sequence[Thread] | None = None) -> None:
        """Until every thread shows its answer to ``step`` (else what they show, and the logs)."""
        waited = self.threads if threads is None else threads
        try:
            await until(lambda: all(answered(self.slack, t, step) for t in waited), ROUND_S)
        except TimeoutError:
            missing = [t for t in waited if not answered(self.slack, t, step)]
            shown = {
                t.tag(step): [text_of(m)[:160] for m in bot_messages(self.slack, t)]
                for t in missing
            }
            logs = [b.stderr[-20:] for b in self.balancer.backends]
            raise AssertionError(f"unanswered after {ROUND_S} s: {shown}; logs: {logs}") from None

    def replica_of(self, tag: str) -> str:
        """The replica whose model call for ``tag`` was answered (the one that took that turn)."""
        takers = [a.replica for a in self.model.answered if a.tag == tag]
        assert len(takers) == 1, f"{tag} was taken by {takers}"
        return takers[0]


async def until(ready: Callable[[], bool], seconds: float) -> None:
    """Wait until ``ready()`` (the fakes offer no event to wait on)."""
    async with asyncio.timeout(seconds):
        while not ready():  # noqa: ASYNC110 - nothing to await but the condition itself
            await asyncio.sleep(0.1)


@contextlib.asynccontextmanager
async def two_replicas(
    tmp_path: Path, store: S3Bucket, cases: int, survivor_stale_after_s: float
) -> AsyncIterator[Run]:
    """Two `fm run --http` on one scratch database and one LanceDB bucket, behind FakeSlack.

    Each first answers a mention of its own in another channel: a replica's first turn after it
    starts holds its event loop until litellm has finished importing on the warm-up thread (up
    to ~15 s here), and this test's short FM_WORKER_STALE_AFTER_S would let the other replica
    take that turn over. With the default two minutes it cannot happen.
    """
    threads = [Thread(number, home=number % 2) for number in range(cases)]
    warm_ups = [Thread(90 + i, home=i, channel=WARM_UP_CHANNEL) for i in (SURVIVOR, VICTIM)]
    async with (
        scratch_database() as database,
        FakeSlack(bot_token=BOT_TOKEN) as slack,
        ReplicaModel(model_answers(threads + warm_ups)) as model,
        aiohttp.ClientSession() as session,
    ):
        shared = {"FM_DATABASE_URL": database, **store.env()}
        envs = [
            {**shared, "FM_WORKER_STALE_AFTER_S": str(survivor_stale_after_s)},
            {**shared, "FM_WORKER_STALE_AFTER_S": str(STALE_AFTER_S)},
        ]
        inbox = Inbox(database)
        try:
            async with replicas(slack, model, tmp_path, envs) as backends:
                run = Run(slack, model, LoadBalancer(backends, session), inbox, tmp_path)
                await run.take(1, warm_ups)
                await run.answers(1, warm_ups)
                run.threads = threads
                yield run
        finally:
            await inbox.close()


@dataclass(frozen=True)
class Kill:
    """When the victim died, and the inbox items it was processing then."""

    at: float
    held: set[int]


async def kill_mid_turn(run: Run, held: int) -> Kill:
    """Open, share, click; SIGKILL the victim while ``held`` of its turns wait on the model.

    The victim's last messages go to it alone first: whichever replica claims first takes a
    burst, so otherwise the survivor could have taken them all. The rest follow to the
    survivor, as a load balancer sends everything there once the victim fails its checks.
    """
    for step in (1, 2):
        await run.take(step)
        await run.answers(step)
    # People read the upload summaries before asking about them; meanwhile every replica's
    # handle on the store sees the others' writes (LanceDB's read consistency interval).
    await asyncio.sleep(READ_CONSISTENCY.total_seconds() + 0.5)
    run.model.hold(replica_name(VICTIM))
    await run.take(3, [t for t in run.threads if t.replica(3) == VICTIM])
    try:
        await until(lambda: len(run.model.holding) >= held, ROUND_S)
    except TimeoutError:
        seen = Counter((a.replica, a.tag[-3:]) for a in run.model.arrivals)
        raise AssertionError(f"{held} turns were not held; the model saw {seen}") from None
    died = await run.balancer.kill(VICTIM)
    kill = Kill(died, await run.inbox.held_by(owner_name(run.root, VICTIM)))
    await run.take(3, [t for t in run.threads if t.replica(3) != VICTIM])
    return kill


async def test_two_replicas_answer_every_turn_once_and_resume_a_killed_ones_turns(
    tmp_path: Path, s3: S3Server
) -> None:
    store = s3.bucket()
    async with two_replicas(tmp_path, store, 30, survivor_stale_after_s=STALE_AFTER_S) as run:
        kill = await kill_mid_turn(run, held=4)
        victim = owner_name(run.root, VICTIM)
        taken = await run.inbox.pickups(victim, kill.held, kill.at, TAKE_OVER_S + ROUND_S)
        await run.answers(3)
        statuses = await settled(run.inbox)
        survivor_log = "".join(run.balancer.backends[SURVIVOR].stderr)
        assert_every_turn_answered_once(run)
        assert_logs_cited_across_replicas(run)
        resumed_calls = model_calls_after(run, kill.at)

    recorded = 3 * len(run.threads) + 2  # and the two warm-up mentions
    assert statuses == {"done": recorded}, "every recorded item finished, none lost"
    assert len(kill.held) >= 4
    assert set(taken) == kill.held, "the survivor took over every item the victim held"
    assert max(taken.values()) <= TAKE_OVER_S + OBSERVED_S, taken
    assert len(resumed_calls) == len({a.tag for a in run.model.holding}), resumed_calls
    assert "resumed items of a silent worker" in survivor_log


async def test_without_a_survivor_resuming_them_the_killed_replicas_turns_stay_unanswered(
    tmp_path: Path, s3: S3Server
) -> None:
    async with two_replicas(tmp_path, s3.bucket(), 6, survivor_stale_after_s=NEVER_S) as run:
        kill = await kill_mid_turn(run, held=2)
        victim = owner_name(run.root, VICTIM)
        taken = await run.inbox.pickups(victim, kill.held, kill.at, TAKE_OVER_S + OBSERVED_S)
        held = {arrival.tag for arrival in run.model.holding}
        unanswered = {t.tag(3) for t in run.threads if not answered(run.slack, t, 3)}
        still_held = await run.inbox.held_by(victim)

    assert kill.held
    assert taken == {}, "the first test's takeover bound would fail"
    assert held <= unanswered, "the first test's 'every turn answered' would fail"
    assert still_held == kill.held, "the first test's 'none lost' would fail"


async def settled(inbox: Inbox) -> Counter[str]:
    """The inbox once nothing is pending or processing any more (every run has finished)."""
    statuses: Counter[str] = Counter()
    deadline = time.monotonic() + ROUND_S
    while time.monotonic() < deadline:
        statuses = await inbox.statuses()
        if not statuses["pending"] and not statuses["processing"]:
            break
        await asyncio.sleep(0.2)
    return statuses


def assert_every_turn_answered_once(run: Run) -> None:
    """Each thread got exactly its posts, each turn's answer shows once, no status line is left."""
    posts = Counter(p.get("thread_ts") for p in run.slack.calls_to("chat.postMessage", ok=True))
    assert {t.number: posts[t.ts] for t in run.threads} == {
        t.number: POSTS[t.kind] for t in run.threads
    }
    for thread in run.threads:
        texts = [text_of(m) for m in bot_messages(run.slack, thread)]
        assert (thread.channel, thread.ts) not in run.slack.workspace.statuses, thread
        steps = thread.model_steps()
        shown = {step: sum(thread.tag(step) in text for text in texts) for step in steps}
        assert shown == dict.fromkeys(steps, 1), thread


def assert_logs_cited_across_replicas(run: Run) -> None:
    """Every upload thread's question cites its log by line; some logs were read by the other
    replica (a thread's upload and question go to different replicas)."""
    crossed = 0
    for thread in (t for t in run.threads if t.kind == "upload"):
        (answer,) = [
            text_of(m) for m in bot_messages(run.slack, thread) if thread.tag(3) in text_of(m)
        ]
        cited = re.search(rf"📎 `{re.escape(thread.filename)}` `:(\d+)(?:-(\d+))?`", answer)
        assert cited is not None, answer
        first, last = int(cited.group(1)), int(cited.group(2) or cited.group(1))
        assert 1 <= first <= last <= LOG_LINES, answer
        assert last >= FIRST_ERROR_LINE, "the excerpt cited shows the timeouts"
        crossed += run.replica_of(thread.tag(2)) != run.replica_of(thread.tag(3))
    assert crossed >= 1, "no log read by one replica was cited by the other"


def model_calls_after(run: Run, died: float) -> dict[str, float]:
    """For each turn the victim was holding: seconds from its death to the survivor's call."""
    calls = {}
    for tag in {arrival.tag for arrival in run.model.holding}:
        resumed = [a for a in run.model.answered if a.tag == tag and a.at > died]
        seen = [(a.replica, round(a.at - died, 2)) for a in run.model.arrivals if a.tag == tag]
        resumptions = "".join(run.balancer.backends[SURVIVOR].stderr).count("resumed items")
        assert [a.replica for a in resumed] == [replica_name(SURVIVOR)], (tag, seen, resumptions)
        calls[tag] = resumed[0].at - died
    return calls
