"""The fake knows Slack's feedback buttons: their documented shape, where they may go, limits."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from bot.slack.render.case.feedback import feedback_buttons
from domain.engine.view import RootCauseView
from domain.investigation.conclusions import ConfidenceLevel
from tests.fakes.slack.block_kit_validation import check_blocks, check_message, check_view

JsonDict = dict[str, Any]

# The example of Slack's context actions block reference.
DOCUMENTED: JsonDict = {
    "type": "context_actions",
    "elements": [
        {
            "type": "feedback_buttons",
            "action_id": "feedback_buttons_1",
            "positive_button": {
                "text": {"type": "plain_text", "text": "👍"},
                "value": "positive_feedback",
            },
            "negative_button": {
                "text": {"type": "plain_text", "text": "👎"},
                "value": "negative_feedback",
            },
        }
    ],
}


def changed(path: list[Any], value: Any) -> JsonDict:
    """The documented block with one field set (None removes it)."""
    block = copy.deepcopy(DOCUMENTED)
    target = block
    for key in path[:-1]:
        target = target[key]
    if value is None:
        del target[path[-1]]
    else:
        target[path[-1]] = value
    return block


def test_the_documented_feedback_buttons_are_accepted() -> None:
    assert check_message("fallback", [DOCUMENTED]) is None


def test_the_renderers_feedback_buttons_are_accepted() -> None:
    root = RootCauseView(
        root_cause="Pool exhausted",
        mechanism="leaked connections",
        confidence_score=0.8,
        confidence_level=ConfidenceLevel.CONFIDENT,
        rubric="Strong supporting evidence, minor gaps",
    )
    block = feedback_buttons("case_1", root).to_dict()

    assert check_message("fallback", [block]) is None


@pytest.mark.parametrize(
    ("path", "value", "expected"),
    [
        (["elements", 0, "negative_button"], None, "missing required field: negative_button"),
        (["elements", 0, "positive_button", "value"], None, "missing required field: value"),
        (
            ["elements", 0, "positive_button", "text", "text"],
            "x" * 76,
            "must be less than 76 characters",
        ),
        (
            ["elements", 0, "positive_button", "text", "type"],
            "mrkdwn",
            "must be a plain_text text object",
        ),
        (["elements"], [], "must provide at least 1 items"),
        (["elements", 0, "type"], "button", "unsupported type: button"),
    ],
)
def test_a_malformed_context_actions_block_is_refused(
    path: list[Any], value: Any, expected: str
) -> None:
    errors = check_blocks([changed(path, value)], max_blocks=50)

    assert any(expected in error for error in errors), errors


def test_at_most_five_elements_fit_in_one_block() -> None:
    element = DOCUMENTED["elements"][0]
    many = [{**element, "action_id": f"f{i}"} for i in range(6)]

    assert check_blocks([{**DOCUMENTED, "elements": many}], max_blocks=50) == [
        "must be less than 6 items [json-pointer:/blocks/0/elements]"
    ]


def test_feedback_buttons_belong_only_in_a_context_actions_block() -> None:
    stray = {"type": "actions", "elements": DOCUMENTED["elements"]}

    assert check_blocks([stray], max_blocks=50) == [
        "unsupported type: feedback_buttons [json-pointer:/blocks/0/elements/0/type]"
    ]


def test_the_app_home_takes_no_context_actions_block() -> None:
    rejection = check_view({"type": "home", "blocks": [DOCUMENTED]})

    assert rejection is not None
    assert rejection.errors == [
        "unsupported type: context_actions [json-pointer:/view/blocks/0/type]"
    ]
