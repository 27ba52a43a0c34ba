"""A thread measured as the on-call engineer reads it, action by action.

The budgets (issues "the thread an on-call engineer wants" and its second pass): at most one new
bot message per person's action, no edit that leaves a message as it was, no visible message over
2,500 characters, no long block shown twice, and, once the case is finished, no button left that
would act on it (`live_buttons`). Every transcript test (the realistic incident, an alert's
approval, a LogHub upload, the faults) holds its thread to them:

    budget = ThreadBudget(bot)
    thread_ts = await budget.act("mention", bot.mention("db-1 is down", statement_reply()))
    await budget.act("upload", upload(...))
    budget.check(thread_ts)
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Awaitable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from tests.demo.summary import MAX_POSTS_PER_ACTION, MAX_VISIBLE_CHARS, edits_of
from tests.demo.visible import visible_length
from tests.integration.bot.harness import CHANNEL, BotHarness

T = TypeVar("T")
JsonDict = dict[str, Any]
LONG_BLOCK_CHARS = 200
"""A block this long shown twice is noise (a short line, a label, may recur)."""


@dataclass
class ThreadBudget:
    """Counts what each action made the bot post (in any thread of the channel)."""

    bot: BotHarness
    channel: str = CHANNEL
    posts: dict[str, int] = field(default_factory=dict)

    def _bot_messages(self) -> int:
        slack = self.bot.slack
        tops = slack.messages(self.channel)
        threads = [m for top in tops for m in slack.messages(self.channel, top["ts"])]
        return sum(1 for m in {m["ts"]: m for m in [*tops, *threads]}.values() if m.get("bot_id"))

    async def act(self, name: str, action: Awaitable[T]) -> T:
        """Run one person's action (already settled by the harness) and count its new posts."""
        before = self._bot_messages()
        done = await action
        self.posts[name] = self._bot_messages() - before
        return done

    def check(self, thread_ts: str) -> None:
        """Every budget, for the actions taken and the messages of ``thread_ts``."""
        over = {name: n for name, n in self.posts.items() if n > MAX_POSTS_PER_ACTION}
        assert not over, f"more than one new message for an action: {self.posts}"
        slack = self.bot.slack
        calls = zip(slack.calls, slack.replies, strict=True)
        changed = edits_of((c.method, c.params, r.body) for c, r in calls)
        assert all(changed), f"{changed.count(False)} edit(s) changed nothing"
        bots = [m for m in slack.messages(self.channel, thread_ts) if m.get("bot_id")]
        longest = max((visible_length(m) for m in bots), default=0)
        assert longest <= MAX_VISIBLE_CHARS, f"a message shows {longest:,} characters"
        assert not repeated_blocks(bots), repeated_blocks(bots)


FINISHED_CASE_ACTIONS = (
    "fm_report",
    "fm_score",
    "fm_details",
    "fm_use_runbook",
    "fm_feedback",
    "fm_case_status",
)
"""Buttons a finished case keeps: its report and score, an answer's details, a past runbook,
rating the conclusion."""


def live_buttons(messages: list[JsonDict]) -> list[str]:
    """Buttons in ``messages`` that would still act on a finished case (answer a question, run
    a tool, mark a request unobtainable, apply a mitigation...): their action ids."""
    found = []
    for message in messages:
        for block in message.get("blocks") or []:
            elements = list(block.get("elements") or [])
            if block.get("accessory"):
                elements.append(block["accessory"])
            for element in elements:
                action = str(element.get("action_id") or "")
                if element.get("type") == "button" and not action.startswith(FINISHED_CASE_ACTIONS):
                    found.append(action)
    return found


def repeated_blocks(messages: list[JsonDict]) -> list[str]:
    """Long blocks (a paragraph or more) shown in more than one place of the thread."""
    seen: Counter[str] = Counter()
    for message in messages:
        for block in message.get("blocks") or []:
            text = (block.get("text") or {}).get("text") or ""
            if len(text) >= LONG_BLOCK_CHARS:
                seen[text] += 1
    return [text[:80] for text, times in seen.items() if times > 1]
