"""An alert as the channel and its case thread show it: the alert message, what changed, budgets.

The alert service decides what happened to a group (it fired, resolved, fired again, grew, went
away by itself) and this draws it: the alert message in the alert channel (the case thread's
parent), a note in the case thread for each change, and the alert channel's one message when a
model budget is reached. Each note comes back with the words it said, which the service keeps as
part of the conversation the next turn's model reads.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from bot.slack.render.alerts import (
    alert_message,
    alert_text,
    firing_again_note,
    joined_note,
    resolved_note,
)
from bot.slack.render.holding_back import budget_notice, self_resolved_note
from bot.slack.render.message import SlackMessage
from bot.thread.voice import ThreadVoice
from domain.budget import Breach
from domain.case import Case
from domain.workflows.alert_groups import AlertGroupRecord
from domain.workflows.signals import SignalGroup


@dataclass(frozen=True)
class Told:
    """A message said in a case thread: where it was posted, and its words."""

    ts: str
    text: str


class AlertThread:
    """Posts and edits an alert's messages: in the alert channel and in its case thread."""

    def __init__(self, voice: ThreadVoice) -> None:
        self._voice = voice

    @staticmethod
    def in_words(group: SignalGroup) -> str:
        """The alert in words, as the case's first message (the conversation the model sees)."""
        return alert_text(group)

    async def post_alert(self, record: AlertGroupRecord) -> str:
        """The alert as a new message of the alert channel; its ts (the case thread's)."""
        return await self._voice.surface.post(
            channel=record.channel_id, thread_ts=None, message=alert_message(record)
        )

    async def update_alert(self, record: AlertGroupRecord) -> None:
        """The alert message drawn again, as the group is now."""
        assert record.alert_ts is not None
        await self._voice.surface.update(
            channel=record.channel_id, ts=record.alert_ts, message=alert_message(record)
        )

    async def resolved(self, case: Case, group: SignalGroup, *, at: datetime) -> Told:
        """The group resolved at ``at``."""
        return await self._say(case, resolved_note(group, at=at))

    async def firing_again(self, case: Case, group: SignalGroup) -> Told:
        """A resolved group fires again."""
        return await self._say(case, firing_again_note(group))

    async def joined(self, case: Case, group: SignalGroup, fingerprints: Sequence[str]) -> Told:
        """More alerts joined the group (``fingerprints``: the new ones)."""
        return await self._say(case, joined_note(group, fingerprints))

    async def self_resolved(self, case: Case, group: SignalGroup, *, after_s: float) -> Told:
        """The group resolved by itself within the debounce, ``after_s`` seconds after firing."""
        return await self._say(case, self_resolved_note(group, after_s=after_s))

    async def budget_reached(self, channel: str, breach: Breach, *, case_label: str | None) -> None:
        """The alert channel's one message when a model budget is reached (``case_label``: the
        case whose budget it was, for a case's budget)."""
        notice = budget_notice(breach, case_label=case_label)
        await self._voice.surface.post(channel=channel, thread_ts=None, message=notice)

    async def _say(self, case: Case, note: SlackMessage) -> Told:
        ts = await self._voice.post(case, note)
        return Told(ts=ts, text=note.text)
