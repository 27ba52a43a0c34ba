"""`fm run` with the embedding model's ONNX copy in its data directory never loads torch."""

from __future__ import annotations

import asyncio
from pathlib import Path

import aiohttp
import pytest

from rag.embeddings.backend import export_model
from rag.embeddings.model import resolve_model_path
from tests.fakes.bot_process import BOT_TOKEN, SIGNING_SECRET, bot_process
from tests.fakes.models.llm_server import FakeLLMServer
from tests.fakes.slack.server import FakeSlack
from tests.fakes.slack.state import BOT_USER_ID
from tests.integration.bot.replies import statement_reply

pytestmark = pytest.mark.slow
WARM_UP_S = 60.0
POLL_S = 0.2


def mapped_libraries(pid: int) -> str:
    """The shared libraries the process has loaded (torch and onnxruntime each map their own)."""
    return Path(f"/proc/{pid}/maps").read_text()


async def until_mapped(pid: int, library: str) -> str:
    """The process's mapped libraries once `library` is among them (the warm-up loads it)."""
    for _ in range(int(WARM_UP_S / POLL_S)):
        maps = mapped_libraries(pid)
        if library in maps:
            return maps
        await asyncio.sleep(POLL_S)
    raise AssertionError(f"{library} was not loaded within {WARM_UP_S:.0f} s")


async def test_the_bot_answers_with_the_onnx_copy_and_never_loads_torch(tmp_path: Path) -> None:
    export_model(resolve_model_path(None), tmp_path / "models")
    async with (
        FakeSlack(bot_token=BOT_TOKEN) as slack,
        FakeLLMServer() as model,
        aiohttp.ClientSession() as session,
    ):
        model.script(statement_reply())
        async with bot_process(slack, model, tmp_path) as bot:
            mention = slack.payloads.message(f"<@{BOT_USER_ID}> disk full on node-3", channel="C1")
            async with session.post(
                f"{bot.url}/slack/events",
                data=mention.body,
                headers=mention.headers(SIGNING_SECRET),
            ) as response:
                assert response.status == 200
            await slack.wait_for("chat.postMessage", 1, timeout=60)  # summary and answer
            maps = await until_mapped(bot.process.pid, "onnxruntime")
            code, _ = await bot.stop()

    assert "libtorch" not in maps
    assert code == 0
