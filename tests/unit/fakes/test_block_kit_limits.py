"""The fake refuses what Slack refuses: every Block Kit limit, checked alone and over HTTP."""

from __future__ import annotations

from typing import Any

import pytest
from slack_sdk.errors import SlackApiError
from slack_sdk.models.blocks import (
    ActionsBlock,
    ButtonElement,
    ConfirmObject,
    ContextBlock,
    DividerBlock,
    HeaderBlock,
    InputBlock,
    MarkdownTextObject,
    Option,
    PlainTextInputElement,
    PlainTextObject,
    SectionBlock,
    StaticSelectElement,
)
from slack_sdk.models.views import View
from slack_sdk.web.async_client import AsyncWebClient

from tests.fakes.slack.block_kit_validation import check_blocks, check_message, check_view
from tests.fakes.slack.server import FakeSlack

JsonDict = dict[str, Any]


def mrkdwn(text: str) -> JsonDict:
    return {"type": "mrkdwn", "text": text}


def plain(text: str) -> JsonDict:
    return {"type": "plain_text", "text": text}


def section(text: str = "ok", **extra: Any) -> JsonDict:
    return {"type": "section", "text": mrkdwn(text), **extra}


def button(action_id: str = "a", text: str = "Go", **extra: Any) -> JsonDict:
    return {"type": "button", "action_id": action_id, "text": plain(text), **extra}


def actions(*elements: JsonDict, **extra: Any) -> JsonDict:
    return {"type": "actions", "elements": list(elements), **extra}


def confirm(**overrides: Any) -> JsonDict:
    dialog = {
        "title": plain("Close case?"),
        "text": mrkdwn("This ends the investigation."),
        "confirm": plain("Close"),
        "deny": plain("Keep open"),
    }
    return {**dialog, **overrides}


def option(i: int) -> JsonDict:
    return {"text": plain(f"Option {i}"), "value": f"v{i}"}


VIOLATIONS: dict[str, tuple[list[JsonDict], str]] = {
    "more than 50 blocks": (
        [section() for _ in range(51)],
        "less than 51 items [json-pointer:/blocks]",
    ),
    "section text over 3000": ([section("x" * 3001)], "/blocks/0/text/text"),
    "section with 11 fields": (
        [{"type": "section", "fields": [mrkdwn("f")] * 11}],
        "less than 11 items [json-pointer:/blocks/0/fields]",
    ),
    "section field over 2000": (
        [{"type": "section", "fields": [mrkdwn("x" * 2001)]}],
        "/blocks/0/fields/0/text",
    ),
    "section without text or fields": ([{"type": "section"}], "must provide text or fields"),
    "empty mrkdwn text": (
        [section("")],
        "more than 0 characters [json-pointer:/blocks/0/text/text]",
    ),
    "header over 150": ([{"type": "header", "text": plain("h" * 151)}], "/blocks/0/text/text"),
    "header in mrkdwn": ([{"type": "header", "text": mrkdwn("h")}], "plain_text"),
    "context with 11 elements": (
        [{"type": "context", "elements": [mrkdwn("c")] * 11}],
        "less than 11 items",
    ),
    "empty context": ([{"type": "context", "elements": []}], "at least 1 items"),
    "actions with 26 elements": (
        [actions(*(button(f"a{i}") for i in range(26)))],
        "less than 26 items",
    ),
    "button text over 75": ([actions(button(text="b" * 76))], "/blocks/0/elements/0/text/text"),
    "empty button text": ([actions(button(text=""))], "more than 0 characters"),
    "button text in mrkdwn": ([actions({**button(), "text": mrkdwn("Go")})], "plain_text"),
    "action_id over 255": ([actions(button("a" * 256))], "/blocks/0/elements/0/action_id"),
    "duplicate action_id in one message": (
        [actions(button("same")), actions(button("same"))],
        "duplicate action_id: same",
    ),
    "button value over 2000": ([actions(button(value="v" * 2001))], "/elements/0/value"),
    "button style not primary/danger": ([actions(button(style="green"))], "one of primary, danger"),
    "block_id over 255": ([section(block_id="b" * 256)], "/blocks/0/block_id"),
    "duplicate block_id": ([section(block_id="x"), section(block_id="x")], "duplicate block_id: x"),
    "confirm title over 100": (
        [actions(button(confirm=confirm(title=plain("t" * 101))))],
        "/confirm/title/text",
    ),
    "confirm text over 300": (
        [actions(button(confirm=confirm(text=mrkdwn("t" * 301))))],
        "/confirm/text/text",
    ),
    "confirm button over 30": (
        [actions(button(confirm=confirm(confirm=plain("c" * 31))))],
        "/confirm/confirm/text",
    ),
    "confirm deny over 30": (
        [actions(button(confirm=confirm(deny=plain("d" * 31))))],
        "/confirm/deny/text",
    ),
    "confirm without deny": (
        [actions(button(confirm={k: v for k, v in confirm().items() if k != "deny"}))],
        "missing required field: deny",
    ),
    "static_select with 101 options": (
        [
            actions(
                {
                    "type": "static_select",
                    "action_id": "s",
                    "placeholder": plain("Pick"),
                    "options": [option(i) for i in range(101)],
                }
            )
        ],
        "less than 101 items",
    ),
    "unknown block type": ([{"type": "carousel"}], "unsupported type: carousel"),
    "unknown element type": ([actions({"type": "slider", "action_id": "s"})], "unsupported type"),
}


@pytest.mark.parametrize("case", list(VIOLATIONS), ids=list(VIOLATIONS))
def test_each_block_kit_limit_is_enforced(case: str) -> None:
    blocks, expected = VIOLATIONS[case]

    rejection = check_message("fallback", blocks)

    assert rejection is not None
    assert rejection.error == "invalid_blocks"
    assert any(expected in e for e in rejection.errors), rejection.errors


def test_blocks_totalling_more_than_13k_characters_are_too_long() -> None:
    blocks = [section("x" * 2900) for _ in range(5)]

    rejection = check_message("fallback", blocks)

    assert rejection is not None
    assert rejection.error == "msg_blocks_too_long"


def test_top_level_text_over_40000_characters_is_too_long() -> None:
    rejection = check_message("x" * 40_001, None)

    assert rejection is not None
    assert rejection.error == "msg_too_long"


def _case_header_blocks() -> list[JsonDict]:
    """A living case header as slack_sdk builds it: every element at or near its limit."""
    close = ButtonElement(
        text="Close",
        action_id="case_close",
        value="c" * 2000,
        style="danger",
        confirm=ConfirmObject(title="t" * 100, text="x" * 300, confirm="c" * 30, deny="d" * 30),
    )
    select = StaticSelectElement(
        action_id="case_pick",
        placeholder="Pick a hypothesis",
        options=[Option(text=f"H{i}", value=f"h{i}") for i in range(100)],
    )
    blocks = [
        HeaderBlock(text="h" * 150),
        SectionBlock(text=MarkdownTextObject(text="s" * 3000), block_id="b" * 255),
        SectionBlock(fields=[MarkdownTextObject(text="f" * 200) for _ in range(10)]),
        ContextBlock(elements=[MarkdownTextObject(text=f"c{i}") for i in range(10)]),
        ActionsBlock(elements=[ButtonElement(text="b" * 75, action_id="a" * 255), close, select]),
        *[DividerBlock() for _ in range(45)],
    ]
    return [b.to_dict() for b in blocks]


def test_blocks_built_with_slack_sdk_at_every_limit_pass_the_block_rules() -> None:
    blocks = _case_header_blocks()

    assert len(blocks) == 50
    assert check_blocks(blocks, max_blocks=50) == []


def test_a_realistic_case_header_built_with_slack_sdk_is_accepted() -> None:
    blocks = [
        HeaderBlock(text="Case 7f3a · investigating"),
        SectionBlock(text="*Working conclusion:* disk full on db-1 (confidence: medium)"),
        ContextBlock(elements=[MarkdownTextObject(text="Stage 3/5 · path: mitigate first")]),
        ActionsBlock(
            elements=[
                ButtonElement(text="Score", action_id="case_score", value="7f3a"),
                ButtonElement(
                    text="Close",
                    action_id="case_close",
                    value="7f3a",
                    style="danger",
                    confirm=ConfirmObject(
                        title="Close case?", text="Ends it.", confirm="Close", deny="Keep"
                    ),
                ),
            ]
        ),
    ]

    assert check_message("Case 7f3a: investigating", [b.to_dict() for b in blocks]) is None


def test_a_modal_with_100_blocks_and_inputs_is_accepted() -> None:
    view = View(
        type="modal",
        title=PlainTextObject(text="t" * 24),
        submit=PlainTextObject(text="Add"),
        callback_id="kb_add",
        private_metadata="m" * 3000,
        blocks=[
            InputBlock(
                label="Runbook", element=PlainTextInputElement(action_id="body", multiline=True)
            ),
            *[DividerBlock() for _ in range(99)],
        ],
    )

    assert check_view(view.to_dict()) is None


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (
            {"blocks": [section() for _ in range(101)]},
            "less than 101 items [json-pointer:/view/blocks]",
        ),
        ({"title": plain("t" * 25)}, "/view/title/text"),
        ({"submit": None}, "submit is required"),
        ({"private_metadata": "m" * 3001}, "/view/private_metadata"),
        ({"type": "sheet"}, "unsupported type: sheet"),
    ],
)
def test_view_limits_are_enforced(change: JsonDict, expected: str) -> None:
    view = {
        "type": "modal",
        "title": plain("Add runbook"),
        "submit": plain("Add"),
        "blocks": [
            {"type": "input", "label": plain("Body"), "element": {"type": "plain_text_input"}}
        ],
    }
    view.update(change)

    rejection = check_view(view)

    assert rejection is not None
    assert rejection.error == "invalid_arguments"
    assert any(expected in e for e in rejection.errors), rejection.errors


async def test_an_invalid_message_is_refused_over_http_and_recorded(
    slack: FakeSlack, client: AsyncWebClient
) -> None:
    with pytest.raises(SlackApiError) as refused:
        await client.chat_postMessage(channel="C1", text="t", blocks=[actions(button(text=""))])

    assert refused.value.response["error"] == "invalid_blocks"
    assert refused.value.response["errors"] == [
        "must be more than 0 characters [json-pointer:/blocks/0/elements/0/text/text]"
    ]
    assert [p.method for p in slack.invalid_payloads] == ["chat.postMessage"]
    assert slack.messages("C1") == []


@pytest.mark.parametrize("method", ["chat_update", "chat_postEphemeral"])
async def test_updates_and_ephemerals_are_validated_too(
    slack: FakeSlack, client: AsyncWebClient, method: str
) -> None:
    posted = await client.chat_postMessage(channel="C1", text="t")

    with pytest.raises(SlackApiError) as refused:
        await getattr(client, method)(
            channel="C1", ts=posted["ts"], user="W1", text="t", blocks=[section("x" * 3001)]
        )

    assert refused.value.response["error"] == "invalid_blocks"
    assert len(slack.invalid_payloads) == 1


async def test_views_are_validated_over_http(slack: FakeSlack, client: AsyncWebClient) -> None:
    too_many = {"type": "home", "blocks": [section() for _ in range(101)]}

    with pytest.raises(SlackApiError) as refused:
        await client.views_publish(user_id="W1", view=too_many)

    assert refused.value.response["error"] == "invalid_arguments"
    assert refused.value.response["response_metadata"]["messages"]
    assert slack.invalid_payloads[0].method == "views.publish"
    assert slack.home("W1") is None


async def test_blocks_too_long_is_answered_as_slack_does(
    slack: FakeSlack, client: AsyncWebClient
) -> None:
    with pytest.raises(SlackApiError) as refused:
        await client.chat_postMessage(channel="C1", text="t", blocks=[section("x" * 2900)] * 5)

    assert refused.value.response["error"] == "msg_blocks_too_long"
    assert slack.invalid_payloads[0].error == "msg_blocks_too_long"
