"""Slack mrkdwn as HTML: *bold*, _italic_, ~strike~, `code`, ```blocks```, > quotes, and the
<…> tokens (mentions, channels, links, dates), the way Slack shows them.

Slack sends ``&``, ``<`` and ``>`` as ``&amp;``, ``&lt;`` and ``&gt;``, so a literal ``<``
always opens a token. Everything else is escaped for HTML; formatting marks count only at word
edges (``snake_case`` stays as it is).
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta

from tests.demo.emoji import shortcodes

_CODE_BLOCK = re.compile(r"```\n?(.*?)```", re.DOTALL)
_INLINE_CODE = re.compile(r"`([^`\n]+)`")
_TOKEN = re.compile(r"<([^<>\n]+)>")
_MARKS = tuple(
    # A mark opens after a non-alphanumeric (or the start) and closes before one.
    (re.compile(rf"(?<![^\W_])(?<!{m}){m}(?=\S)([^{m}\n]+?)(?<=\S){m}(?!{m})(?![^\W_])"), tag)
    for m, tag in ((r"\*", "b"), ("_", "i"), ("~", "s"))
)
_QUOTE = re.compile(r"^&gt;[ ]?(.*)$")
_SLOT = re.compile("\ue000(\\d+)\ue001")
_LINK_SCHEMES = ("http://", "https://", "mailto:")


@dataclass(frozen=True)
class Names:
    """How ids are shown: people and channels by name, dates relative to ``today``."""

    people: Mapping[str, str] = field(default_factory=dict)
    channels: Mapping[str, str] = field(default_factory=dict)
    today: date | None = None

    def person(self, user_id: str) -> str:
        return self.people.get(user_id, user_id)

    def channel(self, channel_id: str) -> str:
        return self.channels.get(channel_id, channel_id)


def slack_unescape(text: str) -> str:
    """Slack's three entities back to characters."""
    return text.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")


def escape(text: str) -> str:
    """Raw Slack text (entities and all) as safe HTML text."""
    return html.escape(slack_unescape(text), quote=True)


def plain_to_html(text: str, *, emoji: bool = True) -> str:
    """A ``plain_text`` object's text: escaped, with :shortcodes: as emoji when asked."""
    escaped = html.escape(text, quote=True)
    return shortcodes(escaped) if emoji else escaped


def mrkdwn_to_html(text: str, names: Names | None = None) -> str:
    """One mrkdwn text as an HTML fragment (block elements for code blocks and quotes)."""
    names = names or Names()
    slots: list[str] = []

    def keep(fragment: str) -> str:
        slots.append(fragment)
        return f"\ue000{len(slots) - 1}\ue001"

    text = _CODE_BLOCK.sub(lambda m: keep(_code_block(m[1])), text)
    text = _INLINE_CODE.sub(lambda m: keep(f"<code>{escape(m[1])}</code>"), text)
    text = _TOKEN.sub(lambda m: keep(token_to_html(m[1], names)), text)
    text = shortcodes(escape(text))
    for pattern, tag in _MARKS:
        text = pattern.sub(lambda m, tag=tag: f"<{tag}>{m[1]}</{tag}>", text)
    text = _restore(_block_lines(text), slots)
    return text.replace("<br><pre", "<pre").replace("</pre><br>", "</pre>")


def _code_block(code: str) -> str:
    return f'<pre class="code-block">{escape(code.rstrip(chr(10)))}</pre>'


def _restore(text: str, slots: list[str]) -> str:
    while _SLOT.search(text):
        text = _SLOT.sub(lambda m: slots[int(m[1])], text)
    return text


def _block_lines(text: str) -> str:
    """Quoted lines into <blockquote>, newlines into <br> (not around code blocks)."""
    out: list[str] = []
    quoted: list[str] = []
    for line in text.split("\n"):
        match = _QUOTE.match(line)
        if match:
            quoted.append(match[1])
            continue
        if quoted:
            out.append(f"<blockquote>{'<br>'.join(quoted)}</blockquote>")
            quoted = []
        out.append(line)
    if quoted:
        out.append(f"<blockquote>{'<br>'.join(quoted)}</blockquote>")
    return "<br>".join(out).replace("</blockquote><br>", "</blockquote>")


# ---------------------------------------------------------------- <…> tokens
def token_to_html(token: str, names: Names) -> str:
    """``@U123``, ``#C123|name``, ``!here``, ``!date^…``, ``url|text`` as Slack shows them."""
    target, _, label = token.partition("|")
    for prefix, render in _TOKEN_KINDS.items():
        if target.startswith(prefix):
            return render(target[len(prefix) :], label, names)
    if target.startswith(_LINK_SCHEMES):
        href = html.escape(slack_unescape(target), quote=True)
        return f'<a href="{href}">{escape(label or target)}</a>'
    return escape(label or target)


def _user(user_id: str, label: str, names: Names) -> str:
    return f'<span class="mention">@{html.escape(names.person(user_id))}</span>'


def _channel(channel_id: str, label: str, names: Names) -> str:
    return f'<span class="mention">#{escape(label or names.channel(channel_id))}</span>'


def _special(command: str, label: str, names: Names) -> str:
    name, _, rest = command.partition("^")
    if name == "date":
        return html.escape(slack_date(rest, label, names.today))
    if name == "subteam":
        return f'<span class="mention">{escape(label or "@group")}</span>'
    return f'<span class="mention">@{escape(label or name)}</span>'


_TOKEN_KINDS: dict[str, Callable[[str, str, Names], str]] = {
    "@": _user,
    "#": _channel,
    "!": _special,
}


# ---------------------------------------------------------------- <!date^…>
def slack_date(spec: str, fallback: str, today: date | None) -> str:
    """``<!date^EPOCH^FORMAT(^LINK)|fallback>`` formatted in UTC (24-hour clock)."""
    parts = spec.split("^")
    try:
        moment = datetime.fromtimestamp(int(parts[0]), UTC)
    except (ValueError, IndexError):
        return slack_unescape(fallback)
    template = parts[1] if len(parts) > 1 else "{date_num} {time}"
    return re.sub(r"\{(\w+)\}", lambda m: _date_word(m[1], moment, today) or m[0], template)


def _date_word(word: str, moment: datetime, today: date | None) -> str | None:
    day = moment.date()
    relative = _relative_day(day, today)
    words = {
        "date_num": day.isoformat(),
        "date": f"{moment:%B} {_ordinal(day.day)}, {day.year}",
        "date_short": f"{moment:%b} {day.day}, {day.year}",
        "date_long": f"{moment:%A, %B} {_ordinal(day.day)}, {day.year}",
        "time": f"{moment:%H:%M}",
        "time_secs": f"{moment:%H:%M:%S}",
    }
    if word.endswith("_pretty"):
        return relative or words.get(word.removesuffix("_pretty"))
    return words.get(word)


def _relative_day(day: date, today: date | None) -> str | None:
    if today is None:
        return None
    offsets = {0: "today", -1: "yesterday", 1: "tomorrow"}
    return offsets.get((day - today) // timedelta(days=1))


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"
