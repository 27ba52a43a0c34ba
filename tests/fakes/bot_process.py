"""`fm run --http` as a separate process against the fakes, as a user starts it (no test wiring).

The bot gets the fakes' addresses through its environment only: FakeSlack as the Web API, the fake
model as the OpenAI-compatible endpoint. Its real composition is used (SQLite, the litellm gateway,
the bundled embedding model, LanceDB), so this is what `make run` starts.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import signal
import sys
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path

from tests.fakes.models.llm_server import FakeLLMServer
from tests.fakes.slack.server import FakeSlack

BOT_TOKEN = "xoxb-test"
SIGNING_SECRET = "8f742231b10e8888abcd99yyyzzz85a5"
START_S = 120.0
RUNNING = re.compile(r"HTTP on port (\d+)")
ROOT = Path(__file__).resolve().parents[2]


@dataclass
class BotProcess:
    """The running bot: its base URL, the process, and what it wrote to stderr so far."""

    url: str
    process: asyncio.subprocess.Process
    stderr: list[str] = field(default_factory=list)

    async def stop(self, timeout_s: float = 60.0) -> tuple[int, str]:
        """SIGTERM, as a service manager stops it; the exit code and what it printed after."""
        self.process.send_signal(signal.SIGTERM)
        assert self.process.stdout is not None
        async with asyncio.timeout(timeout_s):
            rest = await self.process.stdout.read()
            code = await self.process.wait()
        return code, rest.decode()


@contextlib.asynccontextmanager
async def bot_process(
    slack: FakeSlack, model: FakeLLMServer, data_dir: Path, **env: str
) -> AsyncIterator[BotProcess]:
    """`fm run --http --port 0` against the fakes; killed at the end if still running."""
    environment = {
        **os.environ,
        "SLACK_BOT_TOKEN": BOT_TOKEN,
        "SLACK_SIGNING_SECRET": SIGNING_SECRET,
        "FM_SLACK_API_URL": slack.api_url,
        "FM_DATA_DIR": str(data_dir),
        "FM_LLM_MODEL": "openai/test-model",
        "FM_LLM_API_BASE": model.api_base,
        "FM_LLM_API_KEY": "sk-test-not-a-real-key",
        "FM_LOG_LEVEL": "WARNING",
        **env,
    }
    environment.pop("SLACK_APP_TOKEN", None)
    process = await asyncio.create_subprocess_exec(
        str(Path(sys.executable).with_name("fm")),
        "run",
        "--http",
        "--port",
        "0",
        env=environment,
        cwd=str(ROOT),
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    errors: list[str] = []
    reading = asyncio.create_task(_collect(process, errors))
    try:
        yield BotProcess(f"http://127.0.0.1:{await _port(process)}", process, errors)
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
        await reading


async def _collect(process: asyncio.subprocess.Process, lines: list[str]) -> None:
    """Keep reading stderr (a full pipe would block the bot), keeping the lines."""
    assert process.stderr is not None
    while line := await process.stderr.readline():
        lines.append(line.decode(errors="replace"))


async def _port(process: asyncio.subprocess.Process) -> int:
    assert process.stdout is not None
    async with asyncio.timeout(START_S):
        while line := (await process.stdout.readline()).decode():
            if found := RUNNING.search(line):
                return int(found.group(1))
    raise RuntimeError(f"the bot did not start (exit code {await process.wait()})")
