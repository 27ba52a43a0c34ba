"""Text for Slack: escaping untrusted text, splitting long text between sentences, short labels."""

from __future__ import annotations

import re
from collections.abc import Callable

from domain.base import shorten as shorten  # also the renderers' way to shorten a line

# Slack tokens we keep: user and channel mentions and plain links. Everything else in angle
# brackets is escaped, so text from a model or an upload can never ping `<!channel>`.
_KEPT_TOKEN = re.compile(
    r"<(?:@[UW][A-Z0-9]+|#C[A-Z0-9]+(?:\|[^<>]*)?|https?://[^\s<>|]+(?:\|[^<>]*)?)>"
)
_GROUP_MENTION = re.compile(r"<!subteam\^S[A-Z0-9]+(?:\|[^<>]*)?>")
_SENTENCE_BREAK = re.compile(r"(?<=[.!?…])\s+")
FENCE = "```"


def escape(text: str, *, groups: bool = False) -> str:
    """Escape &, < and > for mrkdwn, keeping user/channel mentions and links intact.

    ``groups`` keeps user group mentions too: for the bot's own sentences that name a group
    (never for text from a model or an upload).
    """
    kept = [*_KEPT_TOKEN.finditer(text)]
    if groups:
        kept = sorted([*kept, *_GROUP_MENTION.finditer(text)], key=lambda m: m.start())
    out: list[str] = []
    position = 0
    for match in kept:
        out.append(_escape_plain(text[position : match.start()]))
        out.append(match.group(0))
        position = match.end()
    out.append(_escape_plain(text[position:]))
    return "".join(out)


def _escape_plain(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def code(text: str) -> str:
    """Inline code that survives backticks in the text."""
    return f"`{escape(text.replace('`', 'ʼ'))}`"


def code_block(lines: list[str]) -> str:
    """A copyable code block."""
    body = "\n".join(escape(line.replace(FENCE, "ʼʼʼ")) for line in lines)
    return f"{FENCE}{body}{FENCE}"


def first_sentence(text: str, limit: int) -> str:
    """The first piece of ``text`` that fits ``limit`` (whole sentences when possible)."""
    pieces = split_text(text, limit)
    return pieces[0] if pieces else ""


def split_text(text: str, limit: int) -> list[str]:
    """Pieces of at most ``limit`` characters, cut between paragraphs, lines or sentences.

    Only a single sentence longer than ``limit`` is cut between words (and a word longer than
    ``limit`` between characters). Code fences cut in two are closed and reopened.
    """
    pieces = _split(text.strip(), limit - 2 * (len(FENCE) + 1), 0)
    return _balance_fences([p.strip() for p in pieces if p.strip()])


_Splitter = Callable[[str], list[str]]
_LEVELS: tuple[tuple[_Splitter, str], ...] = (
    (lambda t: t.split("\n\n"), "\n\n"),
    (lambda t: t.split("\n"), "\n"),
    (_SENTENCE_BREAK.split, " "),
    (lambda t: t.split(" "), " "),
)


def _split(text: str, limit: int, level: int) -> list[str]:
    if len(text) <= limit:
        return [text]
    if level == len(_LEVELS):
        return [text[i : i + limit] for i in range(0, len(text), limit)]
    splitter, joiner = _LEVELS[level]
    out: list[str] = []
    current = ""
    for part in splitter(text):
        candidate = f"{current}{joiner}{part}" if current else part
        if len(candidate) <= limit:
            current = candidate
            continue
        if current:
            out.append(current)
        if len(part) <= limit:
            current = part
        else:
            out.extend(_split(part, limit, level + 1))
            current = ""
    if current:
        out.append(current)
    return out


def _balance_fences(pieces: list[str]) -> list[str]:
    balanced: list[str] = []
    reopen = False
    for piece in pieces:
        text = f"{FENCE}\n{piece}" if reopen else piece
        reopen = text.count(FENCE) % 2 == 1
        balanced.append(f"{text}\n{FENCE}" if reopen else text)
    return balanced


def percent(value: float) -> str:
    """0.734 → '73%'."""
    return f"{round(value * 100)}%"


def progress_bar(value: float, width: int = 10) -> str:
    """A text progress bar: ▰▰▰▱▱▱▱▱▱▱."""
    filled = max(0, min(width, round(value * width)))
    return "▰" * filled + "▱" * (width - filled)


def humanize(value: str) -> str:
    """'symptom_verification' → 'Symptom verification'."""
    words = value.replace("_", " ").strip()
    return words[:1].upper() + words[1:]
