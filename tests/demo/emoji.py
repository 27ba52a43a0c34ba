"""The emoji shortcodes an incident thread uses, as Slack draws them; others stay as typed."""

from __future__ import annotations

import re

EMOJI = {
    "+1": "👍",
    "-1": "👎",
    "thumbsup": "👍",
    "thumbsdown": "👎",
    "white_check_mark": "✅",
    "heavy_check_mark": "✔️",
    "x": "❌",
    "warning": "⚠️",
    "rotating_light": "🚨",
    "fire": "🔥",
    "eyes": "👀",
    "mag": "🔍",
    "memo": "📝",
    "clipboard": "📋",
    "page_facing_up": "📄",
    "books": "📚",
    "book": "📖",
    "paperclip": "📎",
    "dart": "🎯",
    "adhesive_bandage": "🩹",
    "hammer_and_wrench": "🛠️",
    "wrench": "🔧",
    "information_source": "ℹ️",
    "hourglass_flowing_sand": "⏳",
    "red_circle": "🔴",
    "large_yellow_circle": "🟡",
    "large_green_circle": "🟢",
    "white_circle": "⚪",
    "no_entry_sign": "🚫",
    "tada": "🎉",
    "robot_face": "🤖",
    "sports_medal": "🏅",
    "bulb": "💡",
    "question": "❓",
    "speech_balloon": "💬",
}
_SHORTCODE = re.compile(r":([a-z0-9_+-]+):")


def emoji(name: str) -> str:
    """The emoji for a shortcode name, or ``:name:`` as typed."""
    return EMOJI.get(name, f":{name}:")


def shortcodes(text: str) -> str:
    """Known ``:shortcodes:`` in ``text`` replaced by their emoji."""
    return _SHORTCODE.sub(lambda m: EMOJI.get(m[1], m[0]), text)
