"""The model writes common markdown; Slack speaks mrkdwn. Escape first, then translate."""

from __future__ import annotations

import re

from bot.render.text import escape

_BOLD = re.compile(r"\*\*(.+?)\*\*")
_UNDERSCORE_BOLD = re.compile(r"__(.+?)__")
_HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*#*$", re.M)
_LINK = re.compile(r"\[([^\]\n]+)\]\((https?://[^\s)]+)\)")
_FENCE_LANGUAGE = re.compile(r"```[a-zA-Z0-9_+-]+\n")


def to_mrkdwn(text: str) -> str:
    """Escaped mrkdwn: **bold** → *bold*, headings → bold lines, [a](url) → <url|a>."""
    converted = escape(text)
    converted = _FENCE_LANGUAGE.sub("```\n", converted)
    converted = _HEADING.sub(r"*\1*", converted)
    converted = _BOLD.sub(r"*\1*", converted)
    converted = _UNDERSCORE_BOLD.sub(r"*\1*", converted)
    return _LINK.sub(lambda m: f"<{m.group(2)}|{m.group(1).replace('|', '/')}>", converted)
