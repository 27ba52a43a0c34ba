"""A bot restarted during an incident answers Slack at once from the second it listens.

`fm run --http` is started as its own process with a fresh data directory (so its warm-up has
everything to do: import litellm, make the embedding model's ONNX copy in a child process, load
it). From the moment it listens, a request goes out every 250 ms for 15 s: mentions, Alertmanager
notifications, `/fm status` and clicks on **Close** in a case header, with `/healthz` and
`/readyz` asked alongside. Slack gives up on an acknowledgement after 3 s; here every one must
come within 1 s (p99 under 300 ms), every mention's thread must show the bot at work at once and be
answered as soon as the model library is loaded, without waiting for the embedding model, and
every request must have been handled exactly once.

Moving the warm-up back onto the event loop (or letting a turn import litellm there) makes the
acknowledgements wait seconds: this test then fails.
"""

from __future__ import annotations

import contextlib
from collections import Counter
from collections.abc import AsyncIterator
from pathlib import Path

import aiohttp
import pytest

from bot.wiring.readiness import LLM
from tests.fakes.bot_process import BOT_TOKEN, bot_process
from tests.fakes.slack.server import FakeSlack
from tests.integration.bot.harness import text_of
from tests.integration.bot.replicas.replicas import POSTGRES_URL, Inbox, scratch_database
from tests.integration.bot.replicas.start_up_traffic import (
    ALERT_CHANNEL,
    ALERT_TOKEN,
    ANSWER,
    CLOSE_ASKED,
    KINDS,
    AnsweringModel,
    Traffic,
    p99,
    summary,
)

pytestmark = pytest.mark.slow

ACK_MAX_S = 1.0
ACK_P99_S = 0.3
SHOWN_S = 1.0
"""A mention's thread shows the bot at work (its status line) this soon."""
ANSWERED_S = 3.0
"""A mention is answered this soon after it was sent, or after litellm was loaded if later."""
SETTLE_S = 60.0
NEVER = 99.0

DATABASES = [
    pytest.param("sqlite", id="sqlite"),
    pytest.param(
        "postgres",
        id="postgres",
        marks=[
            pytest.mark.postgres,
            pytest.mark.skipif(not POSTGRES_URL, reason="needs FM_TEST_DATABASE_URL (PostgreSQL)"),
        ],
    ),
]


@contextlib.asynccontextmanager
async def database(kind: str, data_dir: Path) -> AsyncIterator[str]:
    """The bot's database URL: its own SQLite file, or a scratch PostgreSQL database."""
    if kind == "sqlite":
        yield f"sqlite+aiosqlite:///{data_dir / 'fm.db'}"
        return
    async with scratch_database() as url:
        yield url


async def started_bot_traffic(kind: str, data_dir: Path) -> tuple[Traffic, Counter[str], int]:
    """Start `fm run`, send the traffic, wait for the answers; what happened, the inbox, exit."""
    async with (
        database(kind, data_dir) as url,
        FakeSlack(bot_token=BOT_TOKEN) as slack,
        AnsweringModel() as model,
        aiohttp.ClientSession() as session,
    ):
        env = {"FM_DATABASE_URL": url, "FM_ALERT_TOKEN": ALERT_TOKEN}
        async with bot_process(
            slack, model, data_dir, FM_ALERT_CHANNEL=ALERT_CHANNEL, **env
        ) as bot:
            traffic = Traffic(slack, session, bot)
            await traffic.run()
            await traffic.settle(SETTLE_S)
            code, _ = await bot.stop()
        inbox = Inbox(url)
        statuses = await inbox.statuses()
        await inbox.close()
    return traffic, statuses, code


def assert_acknowledged_at_once(traffic: Traffic) -> None:
    """Every request answered 200 within ACK_MAX_S, p99 within ACK_P99_S; health checks too."""
    # Listening while litellm still loads (seconds): the warm-up did not hold back the start.
    assert (traffic.first_warm_up or {}).get(LLM) == "loading", traffic.first_warm_up
    acks, health = traffic.acks, traffic.health
    assert Counter(ack.kind for ack in acks) == dict.fromkeys(KINDS, 15)
    assert {ack.status for ack in acks} == {200}, summary(acks)
    assert max(ack.seconds for ack in acks) < ACK_MAX_S, summary(acks)
    assert p99([ack.seconds for ack in acks]) < ACK_P99_S, summary(acks)
    assert {ack.status for ack in health} == {200}, summary(health)
    assert max(ack.seconds for ack in health) < ACK_MAX_S, summary(health)


def assert_answered_when_their_parts_were_ready(traffic: Traffic) -> None:
    """Shown at once, answered once litellm was loaded, before the embedding model was."""
    mentions = traffic.mentions
    shown = {m.ts: round((m.shown_at or NEVER) - m.sent_at, 2) for m in mentions}
    assert max(shown.values()) < SHOWN_S, shown
    llm_ready = traffic.ready_at["llm"]
    late = {m.ts: round((m.answered_at or NEVER) - max(m.sent_at, llm_ready), 2) for m in mentions}
    assert max(late.values()) < ANSWERED_S, (llm_ready, late)
    # No upload and an empty knowledge base: nothing to embed, so nothing to wait for.
    first_answer = min(m.answered_at or NEVER for m in mentions)
    assert first_answer < traffic.ready_at.get("embedding_model", NEVER), traffic.ready_at


def assert_each_handled_once(traffic: Traffic, statuses: Counter[str]) -> None:
    """One case, one answer and (when clicked) one close question per mention; one reply each."""
    slack = traffic.slack
    for mention in traffic.mentions:
        thread = traffic.thread(mention)
        assert len(traffic.headers(mention)) == 1, [text_of(m) for m in thread]
        assert sum(ANSWER in text_of(m) for m in thread) == 1
        asked = sum(CLOSE_ASKED in text_of(m) for m in thread)
        assert asked == (mention.ts in traffic.clicked)
    responses = [text_of(call) for call in slack.calls_to("response_url")]
    for reference in traffic.commands:
        assert sum(f"`{reference}`" in text for text in responses) == 1, reference
    posted_alerts = [m for m in slack.messages(ALERT_CHANNEL) if m.get("bot_id")]
    assert len(posted_alerts) == len(traffic.alerts)
    assert set(statuses) == {"done"}, statuses


@pytest.mark.parametrize("kind", DATABASES)
async def test_from_its_first_second_a_started_bot_acknowledges_at_once_and_loses_nothing(
    kind: str, tmp_path: Path
) -> None:
    traffic, statuses, code = await started_bot_traffic(kind, tmp_path)

    assert_acknowledged_at_once(traffic)
    assert_answered_when_their_parts_were_ready(traffic)
    assert_each_handled_once(traffic, statuses)
    assert code == 0
