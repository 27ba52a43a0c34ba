"""The thread's numbers, which the presentation is judged by: at most one new bot post per
person's action, about 700 characters per action over the incident, no visible message over
2,500 characters, and no edit that changes nothing."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from tests.demo.visible import visible_length

JsonDict = dict[str, Any]
MAX_POSTS_PER_ACTION = 1
MAX_VISIBLE_CHARS = 2500
MAX_CHARS_PER_ACTION = 700
"""Characters the bot shows per person's action, on average over the incident."""
MACHINE_ACTIONS = frozenset({"alert_fires"})
"""Actions no person took (an alert's arrival, which posts the alert itself, the case summary and
the analysis with its workflows): counted in the characters per action, not held to one post."""


@dataclass(frozen=True)
class ActionPosts:
    """How many new bot messages one person's action brought."""

    action: str
    posts: int


@dataclass(frozen=True)
class Numbers:
    """The thread, counted."""

    bot_messages: int
    bot_characters: int
    human_actions: int
    longest: int
    per_action: tuple[ActionPosts, ...]
    ephemerals: int = 0
    edits: int = 0
    noop_edits: int = 0
    """Edits that left the message as it was (Slack still marks it "edited")."""

    @property
    def actions_over(self) -> list[str]:
        """People's actions that brought more than one new post."""
        return [
            a.action
            for a in self.per_action
            if a.posts > MAX_POSTS_PER_ACTION and a.action not in MACHINE_ACTIONS
        ]

    @property
    def too_long(self) -> bool:
        return self.longest > MAX_VISIBLE_CHARS

    @property
    def characters_per_action(self) -> int:
        """What the bot shows per person's action, on average."""
        return round(self.bot_characters / self.human_actions) if self.human_actions else 0

    @property
    def too_wordy(self) -> bool:
        return self.characters_per_action > MAX_CHARS_PER_ACTION


def count(
    thread: Sequence[JsonDict],
    actions: Sequence[tuple[str, float]],
    *,
    ephemerals: Sequence[JsonDict] = (),
    edits: Sequence[bool] = (),
) -> Numbers:
    """Numbers for ``thread`` (final state); ``actions`` are (name, real start time) in order.

    A bot message belongs to the last action that began before it was posted. ``edits`` says,
    for each edit of a bot message, whether it changed what the message showed (`edits_of`).
    """
    bots = [m for m in thread if m.get("bot_id")]
    lengths = [visible_length(m) for m in bots]
    starts = [start for _, start in actions]
    per_action = tuple(
        ActionPosts(name, sum(1 for m in bots if _posted_in(float(m["ts"]), i, starts)))
        for i, (name, _) in enumerate(actions)
    )
    return Numbers(
        bot_messages=len(bots),
        bot_characters=sum(lengths),
        human_actions=len(actions),
        longest=max(lengths, default=0),
        per_action=per_action,
        ephemerals=len(ephemerals),
        edits=len(edits),
        noop_edits=sum(1 for changed in edits if not changed),
    )


def edits_of(calls: Iterable[tuple[str, JsonDict, JsonDict]]) -> list[bool]:
    """For each successful chat.update among ``calls`` (method, parameters, reply), whether it
    changed what its message showed (its text and blocks as last posted or edited)."""
    shown: dict[str, str] = {}
    changed: list[bool] = []
    for method, params, reply in calls:
        if not reply.get("ok") or method not in ("chat.postMessage", "chat.update"):
            continue
        ts = str(reply.get("ts") or params.get("ts"))
        now = _shows(params)
        if method == "chat.update":
            changed.append(shown.get(ts) != now)
        shown[ts] = now
    return changed


def _shows(params: JsonDict) -> str:
    blocks = params.get("blocks") or []
    if isinstance(blocks, str):
        blocks = json.loads(blocks)
    return json.dumps([params.get("text") or "", blocks], sort_keys=True)


def _posted_in(ts: float, index: int, starts: Sequence[float]) -> bool:
    after_start = ts >= starts[index]
    before_next = index + 1 == len(starts) or ts < starts[index + 1]
    return after_start and before_next


def report(numbers: Numbers) -> str:
    """A few lines for the terminal."""
    per_action = ", ".join(f"{a.action} {a.posts}" for a in numbers.per_action)
    over = numbers.actions_over
    posts = f"over for {', '.join(over)}" if over else "met"
    length = "over" if numbers.too_long else "met"
    wordy = "over" if numbers.too_wordy else "met"
    lines = [
        f"Bot messages: {numbers.bot_messages} ({numbers.bot_characters:,} characters), "
        f"plus {numbers.ephemerals} only the engineer sees",
        f"Human actions: {numbers.human_actions}",
        f"Longest message: {numbers.longest:,} characters",
        f"New bot posts per action: {per_action}",
        f"Budget ≤ {MAX_POSTS_PER_ACTION} new post per person's action: {posts}",
        f"Budget ≤ {MAX_VISIBLE_CHARS:,} characters per visible message: {length}",
        f"Characters per action: {numbers.characters_per_action:,} "
        f"(budget ≤ {MAX_CHARS_PER_ACTION} on average: {wordy})",
        f"Edits: {numbers.edits}, of which changed nothing: {numbers.noop_edits}",
    ]
    return "\n".join(lines)
