"""The bot end to end: FakeSlack and the fake LLM over real HTTP, the real app, signed requests.

`BotHarness.start()` builds the real runtime (composition root) on a temporary SQLite database
with the real litellm gateway pointed at the fake model server, serves `POST /slack/events` on a
free port, and sends requests built from the real Slack samples, signed like Slack signs them.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp

from bot.server.runner import Server, start_server
from bot.settings import Settings, load_settings
from bot.wiring.runtime import Options, Runtime, build_runtime
from domain.case import Case
from domain.knowledge import KnowledgePort
from domain.llm import MemoryCallRecorder
from domain.queue import InboxItem
from tests.fakes.models.gateway import RecordedSleeps, gateway_for
from tests.fakes.models.llm_server import Scripted, ScriptedModelServer
from tests.fakes.slack.payloads import SlackRequest
from tests.fakes.slack.samples import next_ts
from tests.fakes.slack.server import FakeSlack
from tests.fakes.slack.state import BOT_USER_ID, TEAM_ID

MODEL_TIMEOUT_S = 4.0
BOT_TOKEN = "xoxb-test"
APP_TOKEN = "xapp-1-test"
SIGNING_SECRET = "8f742231b10e8888abcd99yyyzzz85a5"
CHANNEL = "C111"
OPENER = "W222"
SRE = "W333"
MENTION = f"<@{BOT_USER_ID}>"

JsonDict = dict[str, Any]


def bot_settings(slack: FakeSlack, data_dir: Path, **extra: str) -> Settings:
    """Settings as the environment would give them, pointing at the fakes."""
    env = {
        "SLACK_BOT_TOKEN": BOT_TOKEN,
        "SLACK_SIGNING_SECRET": SIGNING_SECRET,
        "FM_SLACK_API_URL": slack.api_url,
        "FM_DATA_DIR": str(data_dir),
        "FM_LLM_MODEL": "openai/test-model",
        "FM_MAX_UPLOAD_MB": "1",
        **extra,
    }
    return load_settings(env, env_file=None)


@dataclass
class BotHarness:
    """One bot process with its fakes; drive it like Slack would."""

    slack: FakeSlack
    llm: ScriptedModelServer
    runtime: Runtime
    server: Server
    session: aiohttp.ClientSession
    sent: list[SlackRequest] = field(default_factory=list)
    recorded: list[InboxItem] = field(default_factory=list)
    settled: int = 0
    judge_waits: RecordedSleeps = field(default_factory=RecordedSleeps)
    """The waits between scoring attempts (recorded, not slept)."""
    llm_calls: MemoryCallRecorder = field(default_factory=MemoryCallRecorder)
    """Every call the gateway made to the fake model (when the harness built the gateway)."""
    _new_record: asyncio.Event = field(default_factory=asyncio.Event)

    @classmethod
    async def start(
        cls,
        slack: FakeSlack,
        model_server: ScriptedModelServer,
        data_dir: Path,
        *,
        knowledge: KnowledgePort,
        socket_mode: bool = False,
        env: dict[str, str] | None = None,
        **options: Any,
    ) -> BotHarness:
        extra = {"SLACK_APP_TOKEN": APP_TOKEN} if socket_mode else {}
        settings = bot_settings(slack, data_dir, **extra, **(env or {}))
        # Generous enough that a scripted 1.5 s reply never times out on a loaded CI machine.
        kit = gateway_for(model_server, timeout_s=MODEL_TIMEOUT_S)
        chosen: dict[str, Any] = {
            "knowledge": knowledge,
            "llm": kit.gateway,
            "poll_interval_s": 0.2,
            "sleep": RecordedSleeps(),
            **options,
        }
        runtime = await build_runtime(settings, Options(**chosen))
        await runtime.start()
        server = await start_server(runtime, http=not socket_mode, port=0, host="127.0.0.1")
        harness = cls(slack, model_server, runtime, server, aiohttp.ClientSession())
        harness.judge_waits = chosen["sleep"]
        harness.llm_calls = kit.recorder
        runtime.services.intake.subscribe(harness._on_record)
        return harness

    def _on_record(self, item: InboxItem) -> None:
        self.recorded.append(item)
        self._new_record.set()

    async def stop(self) -> None:
        await self.session.close()
        await self.server.close()
        await self.runtime.close(grace_s=5)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.port}"

    # ------------------------------------------------------------------ sending
    async def send(
        self, request: SlackRequest, *, secret: str = SIGNING_SECRET, timestamp: int | None = None
    ) -> tuple[int, str]:
        """POST a request to /slack/events, signed; return status and body."""
        self.sent.append(request)
        async with self.session.post(
            f"{self.url}/slack/events",
            data=request.body,
            headers=request.headers(secret, timestamp=timestamp),
        ) as response:
            return response.status, await response.text()

    async def settle(self, expect: int = 1, seconds: float = 20) -> None:
        """Wait for ``expect`` more recorded items (listeners run after the ack), then idle."""
        async with asyncio.timeout(seconds):
            while len(self.recorded) < self.settled + expect:
                self._new_record.clear()
                await self._new_record.wait()
            await self.runtime.worker.wait_idle(seconds)
        self.settled = len(self.recorded)

    async def mention(
        self, text: str, *replies: Scripted, user: str = OPENER, settle: bool = True
    ) -> str:
        """A person mentions the bot at the top level; return the thread ts."""
        self.llm.script(*replies)
        ts = next_ts()
        self.slack.add_message(CHANNEL, f"{MENTION} {text}", user=user, ts=ts)
        status, _ = await self.send(
            self.slack.payloads.message(f"{MENTION} {text}", channel=CHANNEL, user=user, ts=ts)
        )
        assert status == 200
        if settle:
            await self.settle()
        return ts

    async def reply(
        self,
        thread_ts: str,
        text: str,
        *replies: Scripted,
        user: str = OPENER,
        settle: bool = True,
        files: list[JsonDict] | None = None,
    ) -> str:
        """A person writes in a thread (optionally sharing files); return the message ts."""
        self.llm.script(*replies)
        ts = next_ts()
        fields: JsonDict = {"files": files} if files else {}
        self.slack.add_message(CHANNEL, text, user=user, ts=ts, thread_ts=thread_ts, **fields)
        if files:
            request = self.slack.payloads.file_share(
                files, text, channel=CHANNEL, user=user, ts=ts, thread_ts=thread_ts
            )
        else:
            request = self.slack.payloads.message(
                text, channel=CHANNEL, user=user, ts=ts, thread_ts=thread_ts
            )
        status, _ = await self.send(request)
        assert status == 200
        if settle:
            await self.settle()
        return ts

    async def click(
        self,
        message: JsonDict,
        *,
        decision: str | None = None,
        action_prefix: str = "fm_answer",
        user: str = OPENER,
        settle: bool = True,
    ) -> int:
        """Click a button of ``message`` (by its action id prefix and, for answers, decision)."""
        action = find_button(message, action_prefix, decision)
        request = self.slack.payloads.block_action(
            action["action_id"],
            action["value"],
            message=message,
            channel=CHANNEL,
            user=user,
        )
        status, _ = await self.send(request)
        if settle:
            await self.settle()
        return status

    # ------------------------------------------------------------------ reading
    def thread(self, thread_ts: str) -> list[JsonDict]:
        """The thread as Slack shows it now (parent first)."""
        return self.slack.messages(CHANNEL, thread_ts)

    def bot_messages(self, thread_ts: str) -> list[JsonDict]:
        return [m for m in self.thread(thread_ts) if m.get("bot_id")]

    async def case(self, thread_ts: str) -> Case:
        found = await self.runtime.repositories.cases.get_by_thread(TEAM_ID, CHANNEL, thread_ts)
        assert found is not None
        return found

    def llm_prompts(self) -> str:
        """Everything the fake model was sent, as one string."""
        return json.dumps(self.llm.requests)


async def eventually(ready: Callable[[], bool], seconds: float = 5) -> None:
    """Wait until ``ready()`` (a condition of the fakes, which offer no event to wait on)."""
    async with asyncio.timeout(seconds):
        while not ready():  # noqa: ASYNC110 - nothing to await but the condition itself
            await asyncio.sleep(0.02)


def text_of(message: JsonDict) -> str:
    """All visible text of a message: fallback plus every block's text."""
    parts = [message.get("text", "")]
    parts.append(json.dumps(message.get("blocks", []), ensure_ascii=False))
    return "\n".join(parts)


def buttons(message: JsonDict) -> list[JsonDict]:
    """Every button of a message: in actions blocks and beside sections."""
    found: list[JsonDict] = []
    for block in message.get("blocks", []):
        if block["type"] == "actions":
            found.extend(block["elements"])
        elif block["type"] == "section" and block.get("accessory", {}).get("type") == "button":
            found.append(block["accessory"])
    return found


def question_buttons(message: JsonDict) -> list[JsonDict]:
    """The buttons answering a question (the thread's first message also has the summary's)."""
    return [b for b in buttons(message) if b["action_id"].split(":")[0] in QUESTION_ACTIONS]


QUESTION_ACTIONS = ("fm_answer", "fm_correct")


def find_button(message: JsonDict, prefix: str, decision: str | None = None) -> JsonDict:
    for element in buttons(message):
        action_id = element["action_id"]
        if action_id.split(":")[0] != prefix:
            continue
        if decision is None or action_id.endswith(f":{decision}"):
            return element
    raise AssertionError(f"no {prefix} {decision or ''} button in {message.get('text')!r}")


def with_buttons(messages: list[JsonDict], prefix: str) -> list[JsonDict]:
    return [m for m in messages if any(b["action_id"].startswith(prefix) for b in buttons(m))]
