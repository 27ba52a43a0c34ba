"""Run an incident of ours through the bot and keep what Slack ended up holding.

Three stories: checkout-api's 502s after a rollout (`incident.py`), a Kafka consumer dropped
from its group after a config change (`kafka_incident.py`), and a crash-looping pod's alert
approved by the paged on-call (`alerts/alert_incident.py`).
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.demo.summary import edits_of
from tests.fakes.slack.server import FakeSlack
from tests.integration.bot.alerts.alert_incident import ON_CALL, run_alert_incident
from tests.integration.bot.alerts.alert_incident import story_bot as alert_story_bot
from tests.integration.bot.alerts.alert_incident import story_clock as alert_clock
from tests.integration.bot.harness import APP_TOKEN, BOT_TOKEN, CHANNEL, OPENER, SRE, BotHarness
from tests.integration.bot.incident import PEOPLE, incident_bot, run_incident
from tests.integration.bot.incident_replies import CitingModelServer
from tests.integration.bot.incident_story import Step, StoryClock
from tests.integration.bot.kafka_incident import run_kafka_incident
from tests.integration.bot.kafka_incident import story_clock as kafka_clock

Runner = Callable[..., Awaitable[str]]
BotOf = Callable[..., AbstractAsyncContextManager[BotHarness]]


@dataclass(frozen=True)
class Story:
    """What drives a story through the bot, the clock that lives its times, the bot it needs,
    and who reads the thread (and the names of everyone in it)."""

    run: Runner
    clock: Callable[[], StoryClock]
    bot: BotOf = incident_bot
    viewer: str = OPENER
    people: dict[str, str] = field(default_factory=lambda: dict(PEOPLE))


STORIES: dict[str, Story] = {
    "checkout": Story(run_incident, StoryClock),
    "kafka": Story(run_kafka_incident, kafka_clock),
    "alert": Story(
        run_alert_incident,
        alert_clock,
        bot=alert_story_bot,
        viewer=SRE,
        people={**PEOPLE, **ON_CALL},
    ),
}

JsonDict = dict[str, Any]
PREVIEW_BYTES = 2048


@dataclass(frozen=True)
class Action:
    """A person's action and the real time it began (seconds since the epoch)."""

    step: Step
    real: float


@dataclass
class Transcript:
    """The thread as Slack holds it after the incident, and how it came about."""

    clock: StoryClock
    thread: list[JsonDict] = field(default_factory=list)
    ephemerals: list[JsonDict] = field(default_factory=list)
    edits: list[bool] = field(default_factory=list)
    """Per edit of a bot message, whether it changed what the message showed."""
    actions: list[Action] = field(default_factory=list)
    error: str | None = None
    """Why the incident stopped before its end (the thread shows how far it got)."""
    people: dict[str, str] = field(default_factory=lambda: dict(PEOPLE))
    viewer: str = OPENER


async def record_incident(data_dir: Path, story: str = "checkout") -> Transcript:
    """The whole incident (``story``), with the fakes and a bot whose data lives in ``data_dir``."""
    chosen = STORIES[story]
    transcript = Transcript(clock=chosen.clock(), people=chosen.people, viewer=chosen.viewer)

    async def on_step(step: Step) -> None:
        transcript.actions.append(Action(step, time.time()))

    async with (
        FakeSlack(bot_token=BOT_TOKEN, app_token=APP_TOKEN) as slack,
        CitingModelServer() as llm,
        chosen.bot(slack, llm, data_dir, clock=transcript.clock) as bot,
    ):
        thread_ts: str | None = None
        try:
            thread_ts = await chosen.run(bot, on_step=on_step, clock=transcript.clock)
        except (AssertionError, TimeoutError) as stopped:
            transcript.error = str(stopped) or type(stopped).__name__
        thread_ts = thread_ts or _first_thread(slack)
        if thread_ts:
            keep_thread(transcript, slack, thread_ts)
    return transcript


def keep_thread(transcript: Transcript, slack: FakeSlack, thread_ts: str) -> None:
    """The thread's messages (files with their first lines, as Slack previews them) and the
    ephemerals sent to the viewer in it."""
    transcript.thread = [with_previews(slack, m) for m in slack.messages(CHANNEL, thread_ts)]
    transcript.ephemerals = [
        e for e in slack.ephemerals(CHANNEL, transcript.viewer) if e.get("thread_ts") == thread_ts
    ]
    calls = zip(slack.calls, slack.replies, strict=True)
    transcript.edits = edits_of((c.method, c.params, r.body) for c, r in calls)


def with_previews(slack: FakeSlack, message: JsonDict) -> JsonDict:
    """``message`` with a ``preview`` on each text file it shares, as Slack's file objects have."""
    files = []
    for file in message.get("files") or []:
        content = slack.file_content(str(file.get("id")))
        if content is not None and b"\0" not in content[:PREVIEW_BYTES]:
            preview = content[:PREVIEW_BYTES].decode("utf-8", errors="replace")
            truncated = len(content) > PREVIEW_BYTES
            file = {**file, "preview": preview, "preview_is_truncated": truncated}
        files.append(file)
    return {**message, "files": files} if files else message


def _first_thread(slack: FakeSlack) -> str | None:
    top = slack.messages(CHANNEL)
    return str(top[0]["ts"]) if top else None
