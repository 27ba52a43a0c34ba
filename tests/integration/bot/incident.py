"""One realistic incident, end to end: checkout-api's 502s after a rollout shrank its database pool.

The on-call engineer mentions the bot, confirms the problem statement, uploads the application log,
reads the root cause with its cited lines, rolls back and says so (recorded, not asked again),
and with one click resolves the case and has the case report and runbook written. The model's
replies are scripted here, step by step; the bot, its database, the real knowledge service (with
a hashing embedder: no model to load), FakeSlack and the fake model server talk over real HTTP.

    async with FakeSlack(...) as slack, CitingModelServer() as llm:
        async with incident_bot(slack, llm, tmp_path) as bot:
            thread_ts = await run_incident(bot)

``on_step`` is awaited before each of the engineer's actions, so a caller can measure what each
action made the bot post; with a ``StoryClock`` the bot lives the story's times.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

from domain.investigation.evidence_requests import OPEN_STATUSES
from rag.service import open_knowledge_service
from tests.fakes.models.llm_server import FakeLLMServer, Scripted
from tests.fakes.rag import HashingEmbedder
from tests.fakes.slack.server import FakeSlack
from tests.fakes.slack.state import BOT_USER_ID
from tests.integration.bot.harness import OPENER, BotHarness, with_buttons
from tests.integration.bot.incident_replies import (
    documents_replies,
    logs_request_reply,
    resolved_reply,
    root_cause_reply,
    second_look_reply,
    statement_reply,
)
from tests.integration.bot.incident_story import (
    ASK_NEXT,
    ASK_NEXT_TEXT,
    DAY,
    LOG_NAME,
    OPENING,
    ROLLED_BACK,
    UPLOAD_TEXT,
    Step,
    StoryClock,
    log_on,
    step_named,
)

PEOPLE = {OPENER: "Maya Chen", BOT_USER_ID: "FaultMaven"}
"""Display names: the on-call engineer and the bot."""

OnStep = Callable[[Step], Awaitable[None]]
T = TypeVar("T")


@asynccontextmanager
async def incident_bot(
    slack: FakeSlack, llm: FakeLLMServer, data_dir: Path, *, clock: StoryClock | None = None
) -> AsyncIterator[BotHarness]:
    """The bot with the real knowledge service (hashing embedder) and named people."""
    for user, name in PEOPLE.items():
        slack.workspace.users[user] = {"real_name": name, "name": name.lower().replace(" ", ".")}
    knowledge = await open_knowledge_service(
        lancedb_uri=str(data_dir / "lancedb"),
        embedding_model=None,
        llm=None,
        max_upload_bytes=1024 * 1024,
        embedder=HashingEmbedder(),
    )
    options = {"clock": clock} if clock is not None else {}
    harness = await BotHarness.start(slack, llm, data_dir, knowledge=knowledge, **options)
    try:
        yield harness
    finally:
        await harness.stop()


async def run_incident(
    bot: BotHarness, *, on_step: OnStep | None = None, clock: StoryClock | None = None
) -> str:
    """Drive the whole incident through ``bot``; return the thread ts.

    With ``clock`` (the one the bot was started with) the story happens on the clock's day and
    each step moves the clock to the step's time.

    Each step's scripted replies are for that step only: one the bot did not ask the model for
    fails the run (AssertionError naming the step). If confirming the problem does not by itself
    make the bot ask for evidence, the engineer asks what it needs (one more action, ``ask_next``).
    """
    day = clock.day if clock is not None else DAY
    act = Engineer(bot, on_step, clock, day)
    thread_ts = await act.step("mention", lambda: bot.mention(OPENING), statement_reply())
    await act.step("confirm_problem", lambda: act.click_yes(thread_ts), logs_request_reply())
    if act.unused:
        nudge = act.take_unused()
        await act.step(ASK_NEXT, lambda: bot.reply(thread_ts, ASK_NEXT_TEXT), *nudge)
    asked = [
        r.request_id
        for r in (await bot.case(thread_ts)).evidence_requests
        if r.status in OPEN_STATUSES
    ]
    answered = root_cause_reply(day, answers=asked)
    await act.step("upload_log", lambda: act.upload(thread_ts), answered, second_look_reply())
    await act.step("rolled_back", lambda: bot.reply(thread_ts, ROLLED_BACK), resolved_reply())
    await act.step("confirm_resolved", lambda: act.click_yes(thread_ts), *documents_replies())
    act.check_all_used("confirm_resolved")
    return thread_ts


@dataclass
class Engineer:
    """Announces each step, acts, and keeps the replies the bot did not ask the model for."""

    bot: BotHarness
    on_step: OnStep | None
    clock: StoryClock | None
    day: str
    unused: list[Scripted] = field(default_factory=list)
    named: Callable[[str], Step] = step_named
    """The story's step of each name (the checkout-api story's, unless another story's)."""

    async def step(self, name: str, action: Callable[[], Awaitable[T]], *replies: Scripted) -> T:
        """One action with the model replies it should need."""
        self.check_all_used(name)
        step = self.named(name)
        if self.clock is not None:
            self.clock.begin(step)
        if self.on_step is not None:
            await self.on_step(step)
        self.bot.llm.script(*replies)
        done = await action()
        self.unused = list(self.bot.llm.queue)
        self.bot.llm.queue.clear()
        return done

    def check_all_used(self, before: str) -> None:
        if self.unused:
            raise AssertionError(
                f"before {before}: the bot never asked the model for {len(self.unused)} "
                "scripted reply(s)"
            )

    def take_unused(self) -> list[Scripted]:
        taken, self.unused = self.unused, []
        return taken

    async def upload(self, thread_ts: str) -> str:
        """Share the application log in the thread, with a few words."""
        shared = self.bot.slack.add_file(LOG_NAME, log_on(self.day), user=OPENER)
        return await self.bot.reply(thread_ts, UPLOAD_TEXT, files=[shared])

    async def click_yes(self, thread_ts: str) -> int:
        """Yes on the newest question."""
        found = with_buttons(self.bot.bot_messages(thread_ts), "fm_answer")
        assert found, "the bot asked nothing to click"
        return await self.bot.click(found[-1], decision="yes")
