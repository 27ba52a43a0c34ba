"""What the bot says when it holds back: a flap closed, an analysis waiting, a budget reached."""

from __future__ import annotations

from bot.slack.render.message import SlackMessage, message, sections
from bot.slack.render.text import escape
from domain.budget import Breach
from domain.workflows.signals import SignalGroup


def self_resolved_note(group: SignalGroup, *, after_s: float) -> SlackMessage:
    """Said in the thread of an alert that resolved itself within the debounce."""
    text = (
        f"✅ *Resolved by itself* {after_s:.0f} s after firing: {escape(group.title())}. "
        "No investigation was started; the case is closed as self-resolved, and a new one "
        "opens if it fires again."
    )
    return message(sections(text), text=f"Resolved by itself: {group.title()}")


def waiting_note(*, position: int, limit: int) -> SlackMessage:
    """Said once in the thread of an alert whose analysis waits for a free slot."""
    most = "1 alert investigation runs" if limit == 1 else f"{limit} alert investigations run"
    text = f"⏳ At most {most} at once, so this analysis waits its turn: number {position} in line."
    return message(sections(text), text=text)


def budget_note(breach: Breach) -> SlackMessage:
    """The budget's one sentence, in a case thread."""
    sentence = breach.sentence()
    return message(sections(f"💸 {escape(sentence)}"), text=sentence)


def budget_notice(breach: Breach, *, case_label: str | None) -> SlackMessage:
    """The alert channel's one message when a budget is reached."""
    notice = breach.channel_notice(case_label=case_label)
    return message(sections(escape(notice)), text=notice)
