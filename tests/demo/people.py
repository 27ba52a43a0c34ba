"""Avatars as Slack draws them when a person has no picture: initials on a colour of their own."""

from __future__ import annotations

import html

PALETTE = ("#2f7d6d", "#c25b2a", "#3f6fb5", "#8a4fa3", "#b8860b", "#5f7f3a", "#a33b5c")
BOT_COLOUR = "#4a154b"


def initials(name: str) -> str:
    """Up to two initials: "Maya Chen" → "MC", "FaultMaven" → "FM"."""
    words = name.split()
    if len(words) >= 2:
        return (words[0][0] + words[1][0]).upper()
    capitals = [c for c in name if c.isupper()]
    if len(capitals) >= 2:
        return capitals[0] + capitals[1]
    return name[:2].upper() or "?"


def colour(user_id: str) -> str:
    """The same colour for the same person on every run."""
    return PALETTE[sum(map(ord, user_id)) % len(PALETTE)]


def avatar_html(user_id: str, name: str, *, bot: bool = False) -> str:
    """A rounded square with the initials."""
    background = BOT_COLOUR if bot else colour(user_id)
    label = html.escape(initials(name))
    return f'<div class="avatar" style="background:{background}">{label}</div>'
