"""What Slack and Alertmanager send a bot from the second it listens, and what it answered.

Every ``PERIOD_S`` one request goes out, the kinds in turn: a mention opening a case, an
Alertmanager notification of a new group, `/fm status` for a case that does not exist, and a
click on **Close** in the header of the case the round's mention opened (sent once the header
shows, as a person clicks what they see). Each request's acknowledgement time is kept, and so is
when each mention's thread first showed anything (the case header and the status line) and
when it was answered. The bot's `/healthz` and `/readyz` are asked every period too: when each
part of the warm-up became ready is kept.
"""

from __future__ import annotations

import asyncio
import json
import statistics
import time
from dataclasses import dataclass, field
from typing import Any

import aiohttp
from aiohttp import web

from tests.alerts import SINGLE, sample
from tests.fakes.bot_process import SIGNING_SECRET, BotProcess
from tests.fakes.models.llm_server import (
    FakeLLMServer,
    Refused,
    completion,
    openai_error,
    reply,
    strict_schema,
)
from tests.fakes.slack.payloads import SlackRequest
from tests.fakes.slack.samples import next_ts
from tests.fakes.slack.server import FakeSlack
from tests.integration.bot.harness import MENTION, buttons, text_of
from tests.integration.engine.thread import json_reply
from tests.unit.domain.workflows.catalog_data import findings
from tests.unit.domain.workflows.catalog_data import reply as rca_reply

PERIOD_S = 0.25
DURATION_S = 15.0
KINDS = ("mention", "alert", "command", "click")
CHANNEL = "C111"
ALERT_CHANNEL = "C999"
ALERT_TOKEN = "start-up-alert-token-0123456789"
PERSON = "W222"
ANSWER = "Noted: looking into the 500s."
CLOSE = "fm_close_case"
CLOSE_ASKED = "wants to close case"
WATCH_S = 0.05
# The header comes with the case's first answer, which a new replica gives only once its
# embedding model is loaded (its ONNX copy made first: 10-20 s on a busy machine).
HEADER_WAIT_S = 60.0

JsonDict = dict[str, Any]


class AnsweringModel(FakeLLMServer):
    """Answers every request at once: an alert's findings or strategies, else a turn's reply."""

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        body: JsonDict = await request.json()
        self.requests.append(body)
        try:
            self.check(body)
        except Refused as refused:
            return openai_error(refused.status, refused.message, **refused.fields)
        schema = strict_schema(body)
        wanted = (schema or {}).get("properties", {})
        if "signal_type" in wanted:
            item = reply(findings())
        elif "strategies" in wanted:
            item = reply(rca_reply())
        else:
            item = json_reply(ANSWER)
        return web.json_response(completion(body, item, schema))


@dataclass(frozen=True)
class Ack:
    """One request: its kind, when it was sent (s after the bot listened) and its answer."""

    kind: str
    sent_at: float
    seconds: float
    status: int


@dataclass
class Mention:
    """A case opened by a mention: when the thread first showed the bot at work (its status
    line, a reaction, or a message), and the answer."""

    ts: str
    sent_at: float
    shown_at: float | None = None
    answered_at: float | None = None


@dataclass
class Traffic:
    """Sends the requests to ``bot`` and keeps what happened."""

    slack: FakeSlack
    session: aiohttp.ClientSession
    bot: BotProcess
    started: float = field(default_factory=time.monotonic)
    acks: list[Ack] = field(default_factory=list)
    health: list[Ack] = field(default_factory=list)
    ready_at: dict[str, float] = field(default_factory=dict)
    first_warm_up: dict[str, str] | None = None
    """What `/readyz` said of the warm-up the first time it was asked."""
    mentions: list[Mention] = field(default_factory=list)
    clicked: list[str] = field(default_factory=list)
    commands: list[str] = field(default_factory=list)
    alerts: list[str] = field(default_factory=list)

    def now(self) -> float:
        """Seconds since the bot began to listen."""
        return time.monotonic() - self.started

    async def run(self, duration_s: float = DURATION_S) -> None:
        """One request every PERIOD_S, kinds in turn, for ``duration_s``; then wait for acks."""
        watching = asyncio.create_task(self._watch())
        sending: list[asyncio.Task[None]] = []
        try:
            for tick in range(round(duration_s / PERIOD_S)):
                await self._until(tick * PERIOD_S)
                sending.append(asyncio.create_task(self._send(KINDS[tick % len(KINDS)], tick)))
                sending.append(asyncio.create_task(self.check_health()))
            await asyncio.gather(*sending)
        finally:
            watching.cancel()

    async def _until(self, at: float) -> None:
        await asyncio.sleep(max(0.0, at - self.now()))

    async def _send(self, kind: str, tick: int) -> None:
        sent_at = self.now()
        if kind == "click":
            request = await self._click_close(self.mentions[-1])
            sent_at = self.now()
            status = await self._post_slack(request)
        elif kind == "alert":
            status = await self._post_alert(tick)
        else:
            status = await self._post_slack(self._slack_request(kind, tick))
        self.acks.append(Ack(kind, sent_at, self.now() - sent_at, status))

    def _slack_request(self, kind: str, tick: int) -> SlackRequest:
        payloads = self.slack.payloads
        if kind == "mention":
            ts, text = next_ts(), f"{MENTION} payments {tick} returns 500s since 14:05"
            self.slack.add_message(CHANNEL, text, user=PERSON, ts=ts)
            self.mentions.append(Mention(ts, self.now()))
            return payloads.message(text, channel=CHANNEL, user=PERSON, ts=ts)
        reference = f"FM-T{tick:03d}"
        self.commands.append(reference)
        return payloads.slash_command(f"status {reference}", user_id=PERSON)

    async def _click_close(self, mention: Mention) -> SlackRequest:
        """Close in the header of ``mention``'s case, once it shows."""
        for _ in range(round(HEADER_WAIT_S / WATCH_S)):
            if headers := self.headers(mention):
                break
            await asyncio.sleep(WATCH_S)
        else:
            raise AssertionError(f"the case mentioned at {mention.sent_at:.2f} s never showed")
        header = headers[0]
        self.clicked.append(mention.ts)
        close = next(b for b in buttons(header) if b["action_id"].startswith(CLOSE))
        return self.slack.payloads.block_action(
            close["action_id"], close["value"], message=header, channel=CHANNEL, user=PERSON
        )

    def headers(self, mention: Mention) -> list[JsonDict]:
        """The case headers in ``mention``'s thread (one, once the bot has posted it)."""
        return [
            message
            for message in self.thread(mention)
            if any(b["action_id"].startswith(CLOSE) for b in buttons(message))
        ]

    async def _post_slack(self, request: SlackRequest) -> int:
        headers = request.headers(SIGNING_SECRET)
        url = f"{self.bot.url}/slack/events"
        async with self.session.post(url, data=request.body, headers=headers) as response:
            await response.read()
            return response.status

    async def _post_alert(self, tick: int) -> int:
        payload = sample(SINGLE)
        payload["groupKey"] = group_key = f'{{}}:{{alertname="StartUp{tick:03d}"}}'
        self.alerts.append(group_key)
        headers = {"Authorization": f"Bearer {ALERT_TOKEN}", "Content-Type": "application/json"}
        url = f"{self.bot.url}/alerts/alertmanager"
        async with self.session.post(url, data=json.dumps(payload), headers=headers) as response:
            await response.read()
            return response.status

    async def check_health(self) -> None:
        """Ask `/healthz` (timed) and `/readyz` (noting when each part became ready)."""
        sent_at = self.now()
        async with self.session.get(f"{self.bot.url}/healthz") as response:
            await response.read()
        self.health.append(Ack("healthz", sent_at, self.now() - sent_at, response.status))
        async with self.session.get(f"{self.bot.url}/readyz") as response:
            report: JsonDict = await response.json()
        if self.first_warm_up is None:
            self.first_warm_up = report.get("warm_up", {})
        for part, state in report.get("warm_up", {}).items():
            if state == "ready":
                self.ready_at.setdefault(part, self.now())
        if response.status == 200:
            self.ready_at.setdefault("ready", self.now())

    async def _watch(self) -> None:
        """Note when each mention's thread first shows something, and when it is answered."""
        while True:
            for mention in self.mentions:
                self._look_at(mention)
            await asyncio.sleep(WATCH_S)

    def thread(self, mention: Mention) -> list[JsonDict]:
        """What the bot posted in ``mention``'s thread."""
        return [m for m in self.slack.messages(CHANNEL, mention.ts) if m.get("bot_id")]

    def _look_at(self, mention: Mention) -> None:
        ours = self.thread(mention)
        if mention.shown_at is None and (ours or self._shows_work(mention)):
            mention.shown_at = self.now()
        if mention.answered_at is None and any(ANSWER in text_of(m) for m in ours):
            mention.answered_at = self.now()

    def _shows_work(self, mention: Mention) -> bool:
        """Whether the thread says the bot is at it: its status line, or a reaction on the
        mention where the workspace allows no status line."""
        ws = self.slack.workspace
        status = any(
            s["channel"] == CHANNEL and s["thread_ts"] == mention.ts and s["status"]
            for s in ws.status_history
        )
        asked = ws.find(CHANNEL, mention.ts) or {}
        return status or bool(asked.get("reactions"))

    async def settle(self, timeout_s: float) -> None:
        """Wait until every mention is answered (checking as the watcher would)."""
        async with asyncio.timeout(timeout_s):
            while not all(m.answered_at is not None for m in self.mentions):
                for mention in self.mentions:
                    self._look_at(mention)
                await asyncio.sleep(WATCH_S)


def p99(seconds: list[float]) -> float:
    """The 99th percentile (the largest of fewer than 100 values, interpolated)."""
    return statistics.quantiles(seconds, n=100, method="inclusive")[98]


def summary(acks: list[Ack]) -> str:
    """The slowest acknowledgements, for a failure message."""
    slowest = sorted(acks, key=lambda ack: -ack.seconds)[:8]
    return ", ".join(f"{a.kind} at {a.sent_at:.2f} s: {a.seconds * 1000:.0f} ms" for a in slowest)
