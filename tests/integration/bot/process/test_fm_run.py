"""`fm run` as a user starts it: its own process, configured only by its environment.

Everything else in these tests wires the runtime in-process; this one starts the shipped command
against FakeSlack and the fake model, has it answer a mention with its real composition (SQLite,
litellm, the bundled embedding model, LanceDB), and stops it the way a service manager does.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import aiohttp

from tests.fakes.bot_process import BOT_TOKEN, SIGNING_SECRET, bot_process
from tests.fakes.models.llm_server import FakeLLMServer
from tests.fakes.slack.server import FakeSlack
from tests.fakes.slack.state import BOT_USER_ID
from tests.integration.bot.replies import STATEMENT, statement_reply

CHANNEL = "C111"


async def test_fm_run_answers_a_mention_then_stops_cleanly_on_sigterm(tmp_path: Path) -> None:
    async with (
        FakeSlack(bot_token=BOT_TOKEN) as slack,
        FakeLLMServer() as model,
        aiohttp.ClientSession() as session,
    ):
        model.script(statement_reply())
        async with bot_process(slack, model, tmp_path) as bot:
            async with session.get(f"{bot.url}/healthz") as health:
                assert health.status == 200
            mention = slack.payloads.message(
                f"<@{BOT_USER_ID}> payments is throwing 500s", channel=CHANNEL
            )
            async with session.post(
                f"{bot.url}/slack/events",
                data=mention.body,
                headers=mention.headers(SIGNING_SECRET),
            ) as response:
                assert response.status == 200

            # One message: the case summary, then the answer and its question.
            await slack.wait_for("chat.postMessage", 1, timeout=60)
            posts = slack.calls_to("chat.postMessage")
            code, printed = await bot.stop()
            stderr = "".join(bot.stderr)

    assert any(STATEMENT in str(post.get("blocks")) for post in posts)
    assert "payments is throwing 500s" in str(model.requests[0]["messages"])
    assert code == 0
    assert "Stopping" in printed
    assert stderr == "", stderr  # not even Bolt's notice that the environment's token is unused
    with sqlite3.connect(tmp_path / "fm.db") as database:
        (calls,) = database.execute("SELECT count(*) FROM llm_calls").fetchone()
        (cases,) = database.execute("SELECT count(*) FROM cases").fetchone()
    assert (calls, cases) == (1, 1)
