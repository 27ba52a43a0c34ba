"""What a message shows, as text: the measure of its length people have to read.

With blocks, Slack shows the blocks (the top-level ``text`` is only the notification): headers,
section texts and fields, context elements, rich text and button labels. Without blocks it
shows ``text``. Lengths count the message's own markup (``*bold*``, ``<@U1>``), as Slack's
limits do.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

JsonDict = dict[str, Any]
_TEXT_KEYS = ("text", "title", "placeholder")
_NESTED_KEYS = ("fields", "elements", "accessory", "positive_button", "negative_button")


def visible_text(message: JsonDict) -> str:
    """The text a person sees in ``message``, one line per piece."""
    blocks = message.get("blocks") or []
    if not blocks:
        parts = [str(message.get("text") or "")]
    else:
        parts = [text for block in blocks for text in _texts(block)]
    for attachment in message.get("attachments") or []:
        parts += [str(attachment[key]) for key in ("pretext", "title", "text") if key in attachment]
        parts += [text for block in attachment.get("blocks") or [] for text in _texts(block)]
    return "\n".join(part for part in parts if part)


def visible_length(message: JsonDict) -> int:
    """Characters of ``visible_text``."""
    return len(visible_text(message))


def _texts(node: Any) -> Iterator[str]:
    """Every text of a block or element, in order."""
    if isinstance(node, list):
        for item in node:
            yield from _texts(item)
        return
    if not isinstance(node, dict):
        return
    if node.get("type") in ("plain_text", "mrkdwn", "text") and isinstance(node.get("text"), str):
        yield node["text"]
        return
    for key in _TEXT_KEYS:
        if isinstance(node.get(key), dict):
            yield from _texts(node[key])
    for key in _NESTED_KEYS:
        if key in node:
            yield from _texts(node[key])
