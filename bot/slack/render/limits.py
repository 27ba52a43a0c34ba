"""Slack's limits, checked before anything is sent (slack_sdk checks only some of them).

`fit` spreads a long message over several messages; `problems` lists what Slack would refuse;
`ensure_valid` raises instead of sending a payload Slack would reject.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from slack_sdk.errors import SlackObjectFormationError
from slack_sdk.models.blocks import Block

from bot.slack.render.message import SlackMessage, message

MESSAGE_MAX_BLOCKS = 50
VIEW_MAX_BLOCKS = 100
# Slack answers msg_blocks_too_long at roughly 13k characters of blocks; stay clear of it.
MESSAGE_BLOCKS_JSON_MAX = 12_000
MESSAGE_TEXT_MAX = 40_000
_TEXT_LIMITS = {"section": 3000, "header": 150}
_BUTTON = {"text": 75, "value": 2000, "action_id": 255}
_CONFIRM = {"title": 100, "text": 300, "confirm": 30, "deny": 30}


class RenderError(ValueError):
    """A rendered payload breaks Slack's limits (a bug in a renderer, never user input)."""


def fit(rendered: SlackMessage) -> list[SlackMessage]:
    """One or more messages, each within the block-count and block-size limits, in order."""
    batches: list[list[Block]] = []
    size = 0
    for block in rendered.blocks:
        block_size = len(_compact(block.to_dict()))
        full = batches and (
            len(batches[-1]) >= MESSAGE_MAX_BLOCKS or size + block_size > MESSAGE_BLOCKS_JSON_MAX
        )
        if not batches or full:
            batches.append([])
            size = 0
        batches[-1].append(block)
        size += block_size
    if len(batches) <= 1:
        return [rendered]
    first = message(batches[0], rendered.text)
    return [first, *(message(batch) for batch in batches[1:])]


def fits(rendered: SlackMessage, *, room: int = 0) -> bool:
    """Whether ``rendered`` is one message within the limits, with ``room`` characters of blocks
    to spare (for a message that will grow when it is edited)."""
    size = sum(len(_compact(block.to_dict())) for block in rendered.blocks)
    return len(rendered.blocks) <= MESSAGE_MAX_BLOCKS and size <= MESSAGE_BLOCKS_JSON_MAX - room


def ensure_valid(rendered: SlackMessage) -> SlackMessage:
    """The message itself, or RenderError naming every problem."""
    found = problems(rendered)
    if found:
        raise RenderError("; ".join(found))
    return rendered


def problems(rendered: SlackMessage) -> list[str]:
    """Everything in the message Slack would refuse."""
    try:
        blocks = rendered.block_dicts()
    except SlackObjectFormationError as error:
        return [f"blocks: {error}"]
    found = list(check_blocks(blocks, max_blocks=MESSAGE_MAX_BLOCKS))
    if not rendered.text.strip() and not blocks:
        found.append("text: a message needs text or blocks")
    if len(rendered.text) > MESSAGE_TEXT_MAX:
        found.append(f"text: longer than {MESSAGE_TEXT_MAX} characters")
    if len(_compact(blocks)) > MESSAGE_BLOCKS_JSON_MAX:
        found.append("blocks: too long in total (msg_blocks_too_long)")
    return found


def check_blocks(blocks: list[dict[str, Any]], *, max_blocks: int) -> Iterator[str]:
    """Problems of a block list (for messages and views)."""
    if len(blocks) > max_blocks:
        yield f"blocks: more than {max_blocks}"
    action_ids: set[str] = set()
    for index, block in enumerate(blocks):
        yield from (f"blocks[{index}]: {p}" for p in _check_block(block, action_ids))


def _check_block(block: dict[str, Any], action_ids: set[str]) -> Iterator[str]:
    kind = block["type"]
    if kind in _TEXT_LIMITS:
        yield from _check_text(block.get("text"), _TEXT_LIMITS[kind], "text")
    elif kind == "context":
        elements = block.get("elements", [])
        if not 1 <= len(elements) <= 10:
            yield "context: needs 1 to 10 elements"
        for element in elements:
            yield from _check_text(element, 3000, "context element")
    elif kind == "actions":
        elements = block.get("elements", [])
        if not 1 <= len(elements) <= 25:
            yield "actions: needs 1 to 25 elements"
        for element in elements:
            yield from _check_button(element, action_ids)
    elif kind == "input":
        yield from _check_text(block.get("label"), 2000, "label")


def _check_text(text: Any, limit: int, what: str) -> Iterator[str]:
    content = text.get("text") if isinstance(text, dict) else None
    if not isinstance(content, str) or not content.strip():
        yield f"{what}: empty"
    elif len(content) > limit:
        yield f"{what}: longer than {limit} characters"


def _check_button(element: dict[str, Any], action_ids: set[str]) -> Iterator[str]:
    if element.get("type") != "button":
        return
    yield from _check_text(element.get("text"), _BUTTON["text"], "button text")
    for name in ("value", "action_id"):
        if len(str(element.get(name, ""))) > _BUTTON[name]:
            yield f"button {name}: longer than {_BUTTON[name]} characters"
    action_id = str(element.get("action_id", ""))
    if action_id in action_ids:
        yield f"button action_id {action_id!r}: not unique in the message"
    action_ids.add(action_id)
    confirm: dict[str, Any] = element.get("confirm") or {}
    for name, limit in _CONFIRM.items() if confirm else ():
        yield from _check_text(confirm.get(name), limit, f"confirm {name}")


def _compact(data: Any) -> str:
    return json.dumps(data, separators=(",", ":"), ensure_ascii=False)
