"""The fonts have no emoji, so each emoji is drawn as a small coloured mark: a badge with a
symbol, a dot, or a coloured symbol."""

from __future__ import annotations

from dataclasses import dataclass

from tests.demo.picture.canvas import GREY, INK, WHITE


# ---------------------------------------------------------------- emoji
@dataclass(frozen=True)
class Mark:
    """How one emoji is drawn: a ``badge`` (rounded square with a symbol), a ``dot``, or a
    coloured ``symbol``."""

    kind: str
    colour: str
    symbol: str = ""
    ink: str = WHITE


def _badge(colour: str, symbol: str, ink: str = WHITE) -> Mark:
    return Mark("badge", colour, symbol, ink)


def _symbol(colour: str, symbol: str) -> Mark:
    return Mark("symbol", colour, symbol)


def _dot(colour: str) -> Mark:
    return Mark("dot", colour)


MARKS: dict[str, Mark] = {
    "✅": _badge("#2bac76", "✔"),
    "✔": _symbol(INK, "✔"),
    "❌": _symbol("#dd2e44", "✘"),
    "⚠": _symbol("#e8a317", "⚠"),
    "🚨": _badge("#dd2e44", "!"),
    "🔥": _badge("#f4900c", "♨"),
    "👀": _symbol(GREY, "◉"),
    "👁": _symbol(GREY, "◉"),
    "🔍": _symbol("#3b88c3", "⚲"),
    "🔎": _symbol("#3b88c3", "⚲"),
    "📝": _badge("#c69c6d", "✎"),
    "📋": _badge("#c69c6d", "≡"),
    "📄": _badge("#8899a6", "≡"),
    "📖": _badge("#5c913b", "≡"),
    "📚": _badge("#3b88c3", "≡"),
    "📎": _symbol(GREY, "§"),
    "🎯": _symbol("#dd2e44", "◎"),
    "🩹": _badge("#d9a066", "✚"),
    "🛠": _badge("#8899a6", "⚒"),
    "🔧": _badge("#8899a6", "⚒"),
    "ℹ": _badge("#3b88c3", "i"),
    "⏳": _badge("#e8a317", "◷"),
    "🔴": _dot("#dd2e44"),
    "🟠": _dot("#f4900c"),
    "🟡": _dot("#fdcb58"),
    "🟢": _dot("#78b159"),
    "⚪": _dot("#e6e7e8"),
    "🚫": _symbol("#dd2e44", "⊘"),
    "🎉": _symbol("#dd2e44", "✶"),
    "🤖": _badge("#8899a6", "☺"),
    "🏅": _badge("#e8a317", "★"),
    "💡": _symbol("#e8a317", "✦"),
    "❓": _symbol("#dd2e44", "?"),
    "❔": _symbol("#8899a6", "?"),
    "💬": _badge("#8899a6", "…"),
    "🔁": _badge("#3b88c3", "↻"),
    "👍": _badge("#ffcc4d", "+1", INK),
    "👎": _badge("#ffcc4d", "−1", INK),
    "🖼": _badge("#8899a6", "▨"),
    "📅": _badge("#dd2e44", "▦"),
    "🆕": _badge("#3b88c3", "N"),
    "➕": _symbol(INK, "+"),
    "➖": _symbol(INK, "−"),
    "🚀": _symbol("#dd2e44", "➚"),
    "⏭": _symbol(INK, "⇥"),
    "🗄": _badge("#8899a6", "▤"),
    "⚡": _symbol("#e8a317", "⚡"),
}
UNKNOWN_MARK = _dot("#c8c8c8")
"""Any other character the fonts lack."""
_INVISIBLE = dict.fromkeys(map(ord, "\ufe0e\ufe0f\u200d"), None)
