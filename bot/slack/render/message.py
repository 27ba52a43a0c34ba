"""A rendered Slack message (blocks + plain-text fallback) and the block helpers renderers share."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from slack_sdk.models.blocks import (
    ActionsBlock,
    Block,
    ButtonElement,
    ConfirmObject,
    ContextBlock,
    DividerBlock,
    HeaderBlock,
    MarkdownTextObject,
    PlainTextObject,
    SectionBlock,
)

from bot.slack.render.text import shorten, split_text
from domain.people import named

SECTION_TEXT_MAX = 3000
FALLBACK_MAX = 3000
CONTEXT_TEXT_MAX = 3000
CONTEXT_MAX_ELEMENTS = 10
BUTTON_TEXT_MAX = 75
HEADER_TEXT_MAX = 150


@dataclass(frozen=True)
class SlackMessage:
    """What one chat.postMessage / chat.update sends: fallback text and blocks."""

    text: str
    blocks: tuple[Block, ...] = field(default_factory=tuple)

    def block_dicts(self) -> list[dict[str, Any]]:
        """The blocks as Slack JSON, people written as Slack mentions."""
        return [_mentions(block.to_dict()) for block in self.blocks]

    def payload(self) -> dict[str, Any]:
        """Keyword arguments for the Web API."""
        return {"text": slack_people(self.text), "blocks": self.block_dicts()}


def slack_people(text: str) -> str:
    """The core's references to people (``{@U123}``) as Slack mentions (``<@U123>``)."""
    return named(text, "<@{}>")


def _mentions(value: Any) -> Any:
    if isinstance(value, str):
        return slack_people(value)
    if isinstance(value, dict):
        return {key: _mentions(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_mentions(item) for item in value]
    return value


def message(blocks: Iterable[Block], text: str | None = None) -> SlackMessage:
    """A message whose fallback text is ``text`` or, by default, read from its blocks."""
    materialised = tuple(blocks)
    fallback = text if text is not None else fallback_text(materialised)
    pieces = split_text(fallback, FALLBACK_MAX) or ["FaultMaven"]
    return SlackMessage(text=slack_people(pieces[0]), blocks=materialised)


def fallback_text(blocks: Sequence[Block]) -> str:
    """Plain text of the blocks, for notifications and screen readers."""
    lines: list[str] = []
    for block in blocks:
        data = block.to_dict()
        if data["type"] in ("section", "header") and data.get("text"):
            lines.append(data["text"]["text"])
        elif data["type"] == "context":
            lines.extend(e["text"] for e in data["elements"] if "text" in e)
    return "\n".join(lines).strip()


def sections(text: str) -> list[Block]:
    """One or more mrkdwn sections: long text is split between sentences, never inside one."""
    return [
        SectionBlock(text=MarkdownTextObject(text=piece))
        for piece in split_text(text, SECTION_TEXT_MAX)
    ]


def context(*texts: str) -> list[Block]:
    """A context line (nothing when every text is empty)."""
    elements = [
        MarkdownTextObject(text=piece)
        for text in texts
        if text.strip()
        for piece in split_text(text, CONTEXT_TEXT_MAX)
    ]
    return [
        ContextBlock(elements=elements[i : i + CONTEXT_MAX_ELEMENTS])
        for i in range(0, len(elements), CONTEXT_MAX_ELEMENTS)
    ]


def header(text: str) -> Block:
    """A header block (plain text, at most 150 characters)."""
    return HeaderBlock(text=PlainTextObject(text=shorten(text, HEADER_TEXT_MAX), emoji=True))


def divider() -> Block:
    """A divider."""
    return DividerBlock()


def button(
    text: str,
    *,
    action_id: str,
    value: str,
    style: str | None = None,
    confirm: ConfirmObject | None = None,
) -> ButtonElement:
    """A button with a label that fits."""
    return ButtonElement(
        text=PlainTextObject(text=shorten(text, BUTTON_TEXT_MAX), emoji=True),
        action_id=action_id,
        value=value,
        style=style or None,
        confirm=confirm,
    )


def actions(buttons: Sequence[ButtonElement]) -> list[Block]:
    """An actions block (nothing when there are no buttons)."""
    return [ActionsBlock(elements=list(buttons))] if buttons else []


def confirm_dialog(title: str, text: str, *, yes: str, no: str = "Cancel") -> ConfirmObject:
    """The "are you sure?" dialog Slack shows before a click counts."""
    return ConfirmObject(
        title=PlainTextObject(text=shorten(title, 100)),
        text=MarkdownTextObject(text=shorten(text, 300)),
        confirm=PlainTextObject(text=shorten(yes, 30)),
        deny=PlainTextObject(text=shorten(no, 30)),
        style="danger",
    )


def bullets(items: Iterable[str]) -> str:
    """A bullet list."""
    return "\n".join(f"• {item}" for item in items)
