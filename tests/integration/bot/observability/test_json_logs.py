"""`fm run` with FM_LOG_FORMAT=json writes one JSON object per log line, and the lines logged
during a turn carry its case id, team and turn id."""

from __future__ import annotations

import json
from pathlib import Path

import aiohttp

from tests.fakes.bot_process import BOT_TOKEN, SIGNING_SECRET, bot_process
from tests.fakes.models.llm_server import FakeLLMServer
from tests.fakes.slack.server import FakeSlack
from tests.fakes.slack.state import BOT_USER_ID
from tests.integration.bot.replies import statement_reply

CHANNEL = "C111"
TEXT = "payments returns 500s since 14:05"


async def test_fm_run_logs_json_lines_with_the_turns_ids(tmp_path: Path) -> None:
    async with (
        FakeSlack(bot_token=BOT_TOKEN) as slack,
        FakeLLMServer() as model,
        aiohttp.ClientSession() as session,
    ):
        model.script(statement_reply())
        settings = {"FM_LOG_FORMAT": "json", "FM_LOG_LEVEL": "INFO"}
        async with bot_process(slack, model, tmp_path, **settings) as bot:
            message = f"<@{BOT_USER_ID}> {TEXT}"
            ts = slack.add_message(CHANNEL, message)["ts"]
            request = slack.payloads.message(message, channel=CHANNEL, ts=ts)
            async with session.post(
                f"{bot.url}/slack/events",
                data=request.body,
                headers=request.headers(SIGNING_SECRET),
            ) as response:
                assert response.status == 200
            await slack.wait_for("chat.postMessage", 1, timeout=60)
            code, _ = await bot.stop()

    lines = [line for line in "".join(bot.stderr).splitlines() if line.strip()]
    entries = [json.loads(line) for line in lines]  # every line is one JSON object
    in_turn = [e for e in entries if "turn_id" in e]
    assert code == 0
    assert any(e["message"] == "FaultMaven is running" for e in entries)
    assert in_turn, [e["message"] for e in entries]
    assert all(e["team_id"] == "T111" for e in in_turn)
    assert any("case_id" in e for e in in_turn)
    assert TEXT not in "".join(lines), "what people wrote is not logged"
