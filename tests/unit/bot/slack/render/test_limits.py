"""Slack's limits, checked before sending."""

from __future__ import annotations

import pytest
from slack_sdk.models.blocks import (
    ActionsBlock,
    ButtonElement,
    MarkdownTextObject,
    PlainTextObject,
    SectionBlock,
)

from bot.slack.render.limits import RenderError, ensure_valid, fit, problems
from bot.slack.render.message import SlackMessage, message, sections


def button(action_id: str, text: str = "Go") -> ButtonElement:
    return ButtonElement(text=PlainTextObject(text=text), action_id=action_id, value="v")


def test_more_than_fifty_blocks_are_spread_over_several_messages() -> None:
    rendered = message(sections("\n\n".join(f"Paragraph {n}." * 100 for n in range(80))))
    many = message([SectionBlock(text=MarkdownTextObject(text=f"line {n}")) for n in range(120)])

    parts = fit(many)

    assert [len(p.blocks) for p in parts] == [50, 50, 20]
    assert all(problems(p) == [] for p in parts)
    assert all(problems(p) == [] for p in fit(rendered))


def test_a_message_too_long_in_total_is_reported() -> None:
    big = message([SectionBlock(text=MarkdownTextObject(text="x" * 2900)) for _ in range(6)])

    assert "blocks: too long in total (msg_blocks_too_long)" in problems(big)
    assert len(fit(big)) == 2


def test_duplicate_action_ids_and_empty_sections_are_refused() -> None:
    rendered = SlackMessage(
        text="t",
        blocks=(
            ActionsBlock(elements=[button("a"), button("a")]),
            SectionBlock(text=MarkdownTextObject(text=" ")),
        ),
    )

    found = problems(rendered)

    assert "blocks[0]: button action_id 'a': not unique in the message" in found
    assert "blocks[1]: text: empty" in found
    with pytest.raises(RenderError):
        ensure_valid(rendered)
