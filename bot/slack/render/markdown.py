"""The model writes common markdown; Slack speaks mrkdwn. Escape first, then translate."""

from __future__ import annotations

import re

from bot.slack.render.text import escape
from domain.safety.text.blocks import FENCE_LANGUAGES

_BOLD = re.compile(r"\*\*(.+?)\*\*")
_UNDERSCORE_BOLD = re.compile(r"__(.+?)__")
_HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*#*$", re.M)
_LINK = re.compile(r"\[([^\]\n]+)\]\((https?://[^\s)]+)\)")
_FENCE_TAG = re.compile(r"```[ \t]*([^\s`]+)[ \t]*\n")
_TILDE_FENCE = re.compile(r"^[ \t]*~{3,}[ \t]*(\S*)[ \t]*$", re.M)


def to_mrkdwn(text: str) -> str:
    """Escaped mrkdwn: **bold** → *bold*, headings → bold lines, [a](url) → <url|a>.

    Slack has no language tags: a fence's opening word is dropped only when it names a language,
    so code written on the opening line stays visible (it was checked as code).
    """
    converted = escape(text)
    converted = _TILDE_FENCE.sub(lambda m: "```" + m.group(1), converted)
    converted = _FENCE_TAG.sub(_drop_language, converted)
    converted = _HEADING.sub(r"*\1*", converted)
    converted = _BOLD.sub(r"*\1*", converted)
    converted = _UNDERSCORE_BOLD.sub(r"*\1*", converted)
    return _LINK.sub(lambda m: f"<{m.group(2)}|{m.group(1).replace('|', '/')}>", converted)


def _drop_language(match: re.Match[str]) -> str:
    return "```\n" if match.group(1).lower() in FENCE_LANGUAGES else match.group(0)
