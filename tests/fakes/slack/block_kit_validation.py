"""Validate messages and views against `block_kit_limits`, wording errors the way Slack does.

Each error carries a json-pointer to the offending field, as Slack's `invalid_blocks` answers do.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from tests.fakes.slack.block_kit_limits import (
    BLOCKS,
    CONFIRM_DIALOG,
    CONTEXT_ACTION_ELEMENTS,
    ELEMENTS,
    FEEDBACK_BUTTON,
    HOME,
    MESSAGE_BLOCKS_JSON_MAX,
    MESSAGE_MAX_BLOCKS,
    MESSAGE_ONLY_BLOCKS,
    MESSAGE_TEXT_MAX,
    MODAL,
    OPTION,
    OPTION_GROUP,
    SURFACE_MAX_BLOCKS,
    TEXT_OBJECT_MAX,
    Rule,
    text,
)


@dataclass
class _Walk:
    """Errors found so far and the ids that must be unique within one message or view."""

    errors: list[str] = field(default_factory=list)
    action_ids: set[str] = field(default_factory=set)
    block_ids: set[str] = field(default_factory=set)

    def fail(self, message: str, pointer: str) -> None:
        self.errors.append(f"{message} [json-pointer:{pointer}]")


def _check_text(walk: _Walk, value: Any, rule: Rule, at: str) -> None:
    if not isinstance(value, dict) or value.get("type") not in ("plain_text", "mrkdwn"):
        walk.fail("must be a text object (plain_text or mrkdwn)", at)
        return
    if rule.kind == "plain" and value["type"] != "plain_text":
        walk.fail("must be a plain_text text object", f"{at}/type")
    content = value.get("text")
    limit = min(rule.max_len or TEXT_OBJECT_MAX, TEXT_OBJECT_MAX)
    if not isinstance(content, str) or not content:
        walk.fail("must be more than 0 characters", f"{at}/text")
    elif len(content) > limit:
        walk.fail(f"must be less than {limit + 1} characters", f"{at}/text")


def _check_list(walk: _Walk, value: Any, rule: Rule, at: str) -> list[Any]:
    if not isinstance(value, list):
        walk.fail("must be an array", at)
        return []
    if rule.max_items is not None and len(value) > rule.max_items:
        walk.fail(f"must be less than {rule.max_items + 1} items", at)
    if len(value) < rule.min_items:
        walk.fail(f"must provide at least {rule.min_items} items", at)
    return value


def _check_string(walk: _Walk, value: Any, rule: Rule, at: str) -> None:
    if rule.max_len is not None and (not isinstance(value, str) or len(value) > rule.max_len):
        walk.fail(f"must be a string of less than {rule.max_len + 1} characters", at)


def _check_enum(walk: _Walk, value: Any, rule: Rule, at: str) -> None:
    if value not in rule.choices:
        walk.fail(f"must be one of {', '.join(rule.choices)}", at)


def _check_context_item(walk: _Walk, item: Any, at: str) -> None:
    if isinstance(item, dict) and item.get("type") == "image":
        _check_object(walk, item, ELEMENTS, at)
    else:
        _check_text(walk, item, text("text", TEXT_OBJECT_MAX), at)


def _each(check: Callable[[_Walk, Any, str], None]) -> Callable[[_Walk, Any, Rule, str], None]:
    """A list rule: check the list's size, then every item."""

    def run(walk: _Walk, value: Any, rule: Rule, at: str) -> None:
        for i, item in enumerate(_check_list(walk, value, rule, at)):
            check(walk, item, f"{at}/{i}")

    return run


def _check_texts(walk: _Walk, value: Any, rule: Rule, at: str) -> None:
    for i, item in enumerate(_check_list(walk, value, rule, at)):
        _check_text(walk, item, rule, f"{at}/{i}")


_KIND_CHECKS: dict[str, Callable[[_Walk, Any, Rule, str], None]] = {
    "text": _check_text,
    "plain": _check_text,
    "str": _check_string,
    "enum": _check_enum,
    "texts": _check_texts,
    "element": lambda walk, value, rule, at: _check_object(walk, value, ELEMENTS, at),
    "elements": _each(lambda walk, item, at: _check_object(walk, item, ELEMENTS, at)),
    "context": _each(_check_context_item),
    "confirm": lambda walk, value, rule, at: _check_fields(walk, value, CONFIRM_DIALOG, at),
    "options": _each(lambda walk, item, at: _check_fields(walk, item, OPTION, at)),
    "groups": _each(lambda walk, item, at: _check_fields(walk, item, OPTION_GROUP, at)),
    "context_actions": _each(
        lambda walk, item, at: _check_object(walk, item, CONTEXT_ACTION_ELEMENTS, at)
    ),
    "feedback_button": lambda walk, value, rule, at: _check_fields(
        walk, value, FEEDBACK_BUTTON, at
    ),
}


def _check_fields(walk: _Walk, obj: Any, rules: tuple[Rule, ...], at: str) -> None:
    if not isinstance(obj, dict):
        walk.fail("must be an object", at)
        return
    for rule in rules:
        if obj.get(rule.name) is None:
            if rule.required:
                walk.fail(f"missing required field: {rule.name}", at)
            continue
        _KIND_CHECKS[rule.kind](walk, obj[rule.name], rule, f"{at}/{rule.name}")


def _check_object(walk: _Walk, obj: Any, table: dict[str, tuple[Rule, ...]], at: str) -> None:
    kind = obj.get("type") if isinstance(obj, dict) else None
    if not isinstance(kind, str) or kind not in table:
        walk.fail(f"unsupported type: {kind}", f"{at}/type")
        return
    _check_fields(walk, obj, table[kind], at)
    action_id = obj.get("action_id")
    if table in (ELEMENTS, CONTEXT_ACTION_ELEMENTS) and isinstance(action_id, str):
        if action_id in walk.action_ids:
            walk.fail(f"duplicate action_id: {action_id}", f"{at}/action_id")
        walk.action_ids.add(action_id)
    if kind == "static_select" and not obj.get("options") and not obj.get("option_groups"):
        walk.fail("must provide options or option_groups", at)


def _check_block(walk: _Walk, block: Any, at: str) -> None:
    _check_object(walk, block, BLOCKS, at)
    if not isinstance(block, dict):
        return
    block_id = block.get("block_id")
    if block_id is not None:
        if not isinstance(block_id, str) or not 0 < len(block_id) <= 255:
            walk.fail("must be a string of 1 to 255 characters", f"{at}/block_id")
        elif block_id in walk.block_ids:
            walk.fail(f"duplicate block_id: {block_id}", f"{at}/block_id")
        walk.block_ids.add(str(block_id))
    if block.get("type") == "section" and not block.get("text") and not block.get("fields"):
        walk.fail("must provide text or fields", at)


def check_blocks(blocks: Any, *, max_blocks: int, pointer: str = "/blocks") -> list[str]:
    """Every Block Kit violation in a list of blocks, as Slack words them."""
    walk = _Walk()
    items = _check_list(walk, blocks, Rule("blocks", "elements", max_items=max_blocks), pointer)
    for i, block in enumerate(items):
        _check_block(walk, block, f"{pointer}/{i}")
    return walk.errors


@dataclass(frozen=True)
class Rejection:
    """Why Slack would refuse a payload: the error code it answers and its messages."""

    error: str
    errors: list[str]


def check_message(text_value: Any, blocks: Any) -> Rejection | None:
    """Slack's verdict on a message's top-level text and blocks (None when accepted)."""
    if isinstance(text_value, str) and len(text_value) > MESSAGE_TEXT_MAX:
        return Rejection("msg_too_long", [f"text must be at most {MESSAGE_TEXT_MAX} characters"])
    if blocks is None:
        return None
    errors = check_blocks(blocks, max_blocks=MESSAGE_MAX_BLOCKS)
    if errors:
        return Rejection("invalid_blocks", errors)
    size = len(json.dumps(blocks, separators=(",", ":"), ensure_ascii=False))
    if size > MESSAGE_BLOCKS_JSON_MAX:
        return Rejection("msg_blocks_too_long", [f"blocks total {size} characters"])
    return None


def check_view(view: Any) -> Rejection | None:
    """Slack's verdict on a modal or App Home view (None when accepted)."""
    walk = _Walk()
    kind = view.get("type") if isinstance(view, dict) else None
    if kind not in ("modal", "home"):
        walk.fail(f"unsupported type: {kind}", "/view/type")
        return Rejection("invalid_arguments", walk.errors)
    _check_fields(walk, view, MODAL if kind == "modal" else HOME, "/view")
    blocks = view.get("blocks")
    walk.errors += check_blocks(blocks, max_blocks=SURFACE_MAX_BLOCKS, pointer="/view/blocks")
    for i, block in enumerate(blocks if isinstance(blocks, list) else []):
        if isinstance(block, dict) and block.get("type") in MESSAGE_ONLY_BLOCKS:
            walk.fail(f"unsupported type: {block['type']}", f"/view/blocks/{i}/type")
    has_inputs = isinstance(blocks, list) and any(
        isinstance(b, dict) and b.get("type") == "input" for b in blocks
    )
    if kind == "modal" and has_inputs and not view.get("submit"):
        walk.fail("submit is required when a modal contains input blocks", "/view/submit")
    return Rejection("invalid_arguments", walk.errors) if walk.errors else None
