"""The numbers the thread is judged by: posts per action, characters, the longest message."""

from __future__ import annotations

import json
from typing import Any

from tests.demo.summary import count, edits_of, report
from tests.demo.visible import visible_length, visible_text


def bot(ts: float, text: str = "", **fields: Any) -> dict[str, Any]:
    return {"user": "U0BOT", "bot_id": "B0BOT", "ts": f"{ts:.6f}", "text": text, **fields}


def person(ts: float, text: str = "hi") -> dict[str, Any]:
    return {"user": "W1", "ts": f"{ts:.6f}", "text": text}


def test_a_message_with_blocks_is_measured_by_its_blocks_not_its_notification_text() -> None:
    message = bot(
        1,
        "notification fallback that nobody sees in the thread",
        blocks=[
            {"type": "header", "text": {"type": "plain_text", "text": "FM-1"}},
            {"type": "section", "text": {"type": "mrkdwn", "text": "*Cause*"}},
            {
                "type": "actions",
                "elements": [{"type": "button", "text": {"type": "plain_text", "text": "Yes"}}],
            },
        ],
    )

    assert visible_text(message) == "FM-1\n*Cause*\nYes"
    assert visible_length(message) == len("FM-1\n*Cause*\nYes")


def test_a_message_without_blocks_is_measured_by_its_text() -> None:
    assert visible_length(bot(1, "hello <@W1>")) == len("hello <@W1>")


def test_each_bot_post_counts_for_the_last_action_before_it() -> None:
    thread = [person(100), bot(101, "a"), bot(102, "bb"), person(110), bot(111, "ccc"), person(120)]
    actions = [("mention", 100.0), ("upload", 110.0), ("click", 120.0)]

    numbers = count(thread, actions)

    assert (numbers.bot_messages, numbers.bot_characters, numbers.longest) == (3, 6, 3)
    assert numbers.human_actions == 3
    assert [(a.action, a.posts) for a in numbers.per_action] == [
        ("mention", 2),
        ("upload", 1),
        ("click", 0),
    ]
    assert numbers.actions_over == ["mention"]
    assert not numbers.too_long


def test_the_report_says_which_budgets_are_met() -> None:
    thread = [person(100), bot(101, "x" * 3001)]

    text = report(count(thread, [("mention", 100.0)], ephemerals=[{"ts": "101.5"}]))

    assert "Bot messages: 1 (3,001 characters), plus 1 only the engineer sees" in text
    assert "Human actions: 1" in text
    assert "Longest message: 3,001 characters" in text
    assert "Budget ≤ 1 new post per person's action: met" in text
    assert "Budget ≤ 2,500 characters per visible message: over" in text
    assert "Characters per action: 3,001 (budget ≤ 700 on average: over)" in text


def test_an_edit_that_leaves_the_message_as_it_was_is_counted_as_changing_nothing() -> None:
    blocks = [{"type": "section", "text": {"type": "mrkdwn", "text": "Hi"}}]
    calls = [
        ("chat.postMessage", {"text": "Hi", "blocks": blocks}, {"ok": True, "ts": "1.1"}),
        ("chat.update", {"ts": "1.1", "text": "Hi", "blocks": json.dumps(blocks)}, {"ok": True}),
        ("chat.update", {"ts": "1.1", "text": "Hello", "blocks": blocks}, {"ok": True}),
        ("chat.update", {"ts": "1.1", "text": "Hello!"}, {"ok": False}),
    ]

    assert edits_of(calls) == [False, True]
    numbers = count([], [("mention", 1.0)], edits=edits_of(calls))
    assert (numbers.edits, numbers.noop_edits) == (2, 1)
