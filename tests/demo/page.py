"""A Slack thread as one self-contained HTML page: the parent, then the replies, as Slack's
thread pane shows them (avatars, names, times, blocks, files, reactions, "(edited)", and the
messages only the viewer sees).

The input is what Slack itself holds: each message in its current state (an edited message is
its final version, marked "(edited)") and the ephemeral messages sent to the viewer.
"""

from __future__ import annotations

import html
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from tests.demo.blocks import blocks_to_html
from tests.demo.emoji import emoji
from tests.demo.files import files_to_html
from tests.demo.mrkdwn import Names, mrkdwn_to_html
from tests.demo.people import avatar_html

JsonDict = dict[str, Any]
STYLE = Path(__file__).with_name("thread.css")
GROUP_SECONDS = 300
"""Slack shows a person's messages within five minutes of each other under one name."""


def slack_time(ts: str) -> datetime:
    """A Slack timestamp as a UTC time."""
    return datetime.fromtimestamp(float(ts), UTC)


@dataclass(frozen=True)
class ThreadView:
    """One thread as Slack holds it, and how to show it."""

    messages: Sequence[JsonDict]
    """Parent first, then the replies, each in its current state."""
    people: Mapping[str, str]
    """Display names by user id."""
    bot_user: str
    """The app's user id: its messages get the APP badge, and it sends the ephemerals."""
    ephemerals: Sequence[JsonDict] = ()
    """Messages only the viewer sees (``chat.postEphemeral``: ``ts``, ``text``, ``blocks``)."""
    channel: str = "incidents"
    shown_at: Callable[[str], datetime] = slack_time
    """The time shown for a Slack timestamp."""
    note: str = ""
    """A line under the thread (how it was made)."""
    names: Names = field(init=False)

    def __post_init__(self) -> None:
        last = max((self.shown_at(m["ts"]) for m in self.messages), default=None)
        today = last.date() if last else None
        object.__setattr__(self, "names", Names(people=self.people, today=today))


@dataclass(frozen=True)
class Entry:
    """One message in the order shown, with who sent it and whether only the viewer sees it."""

    message: JsonDict
    author: str
    ephemeral: bool = False


def render_page(view: ThreadView) -> str:
    """The whole page."""
    entries = thread_entries(view)
    parent, replies = entries[0:1], entries[1:]
    count = sum(1 for entry in replies if not entry.ephemeral)
    body = [_pane_head(view)]
    body += [_message(view, entry, grouped=False) for entry in parent]
    if replies:
        word = "reply" if count == 1 else "replies"
        body.append(f'<div class="replies"><span>{count} {word}</span></div>')
    previous: Entry | None = None
    for entry in replies:
        body.append(_message(view, entry, grouped=_continues(view, previous, entry)))
        previous = entry
    if view.note:
        body.append(f'<footer class="note">{html.escape(view.note)}</footer>')
    return _document(view, "\n".join(body))


def thread_entries(view: ThreadView) -> list[Entry]:
    """Messages and the viewer's ephemerals, in time order (the parent stays first)."""
    entries = [Entry(m, _author(m)) for m in view.messages]
    entries += [Entry(e, view.bot_user, ephemeral=True) for e in view.ephemerals]
    if not entries:
        return []
    first, *rest = entries
    return [first, *sorted(rest, key=lambda entry: _ts_key(entry.message["ts"]))]


def _author(message: JsonDict) -> str:
    return str(message.get("user") or message.get("bot_id") or "")


def _ts_key(ts: str) -> tuple[int, int]:
    seconds, _, micro = ts.partition(".")
    return int(seconds), int(micro or 0)


def _continues(view: ThreadView, previous: Entry | None, entry: Entry) -> bool:
    if previous is None or previous.author != entry.author:
        return False
    if previous.ephemeral or entry.ephemeral:
        return False
    gap = view.shown_at(entry.message["ts"]) - view.shown_at(previous.message["ts"])
    return gap.total_seconds() < GROUP_SECONDS


def _message(view: ThreadView, entry: Entry, *, grouped: bool) -> str:
    message, author = entry.message, entry.author
    shown = view.shown_at(message["ts"])
    classes = ["msg"]
    if entry.ephemeral:
        classes.append("ephemeral")
    if grouped:
        classes.append("grouped")
        gutter = f'<time class="gutter-time">{shown:%H:%M}</time>'
        head = ""
    else:
        name = _name(view, message, author)
        gutter = avatar_html(author, name, bot=author == view.bot_user)
        head = _meta(name, shown, bot=_is_bot(view, message, author))
    only = '<div class="only-you">👁 Only visible to you</div>' if entry.ephemeral else ""
    content = f'<div class="content">{head}{only}{message_body(message, view.names)}</div>'
    gutter = f'<div class="gutter">{gutter}</div>'
    return f'<article class="{" ".join(classes)}">{gutter}{content}</article>'


def _name(view: ThreadView, message: JsonDict, author: str) -> str:
    if author in view.people:
        return view.people[author]
    profile = message.get("bot_profile") or message.get("user_profile") or {}
    return str(profile.get("real_name") or profile.get("name") or message.get("username") or author)


def _is_bot(view: ThreadView, message: JsonDict, author: str) -> bool:
    return author == view.bot_user or bool(message.get("bot_id"))


def _meta(name: str, shown: datetime, *, bot: bool) -> str:
    badge = '<span class="badge">APP</span>' if bot else ""
    return (
        f'<div class="meta"><span class="name">{html.escape(name)}</span>{badge}'
        f'<time class="time">{shown:%H:%M}</time></div>'
    )


def message_body(message: JsonDict, names: Names) -> str:
    """Blocks (or the text when there are none), attachments, files and reactions."""
    edited = '<span class="edited">(edited)</span>' if message.get("edited") else ""
    blocks = message.get("blocks") or []
    if blocks:
        body = blocks_to_html(blocks, names, trailer=edited)
    elif message.get("text") or edited:
        text = mrkdwn_to_html(str(message.get("text") or ""), names)
        body = f'<div class="b-text">{text}{" " + edited if edited else ""}</div>'
    else:
        body = ""
    parts = [body, attachments_html(message, names), files_to_html(message.get("files") or [])]
    parts.append(_reactions(message))
    return "".join(parts)


def attachments_html(message: JsonDict, names: Names) -> str:
    """Legacy attachments: a coloured bar beside their text, fields and blocks."""
    out = []
    for attachment in message.get("attachments") or []:
        color = str(attachment.get("color") or "#dddddd")
        color = color if color.startswith("#") else f"#{color}"
        inner = [
            f'<div class="att-{key}">{mrkdwn_to_html(str(attachment[key]), names)}</div>'
            for key in ("pretext", "title", "text", "footer")
            if attachment.get(key)
        ]
        inner.append(blocks_to_html(attachment.get("blocks") or [], names))
        style = f"border-left-color:{html.escape(color, quote=True)}"
        out.append(f'<div class="attachment" style="{style}">{"".join(inner)}</div>')
    return "".join(out)


def _reactions(message: JsonDict) -> str:
    pills = "".join(
        f'<span class="reaction">{html.escape(emoji(str(r.get("name", ""))))} '
        f"<b>{int(r.get('count', 1))}</b></span>"
        for r in message.get("reactions") or []
    )
    return f'<div class="reactions">{pills}</div>' if pills else ""


def _pane_head(view: ThreadView) -> str:
    return (
        '<header class="pane-head"><span class="pane-title">Thread</span>'
        f'<span class="pane-channel"># {html.escape(view.channel)}</span></header>'
    )


def _document(view: ThreadView, body: str) -> str:
    style = STYLE.read_text(encoding="utf-8")
    title = f"Thread in #{view.channel}"
    return (
        '<!doctype html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>{html.escape(title)}</title><style>\n{style}</style></head>\n"
        f'<body><main class="pane">\n{body}\n</main></body></html>\n'
    )
