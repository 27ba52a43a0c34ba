"""Slack's documented Block Kit limits, as data: one row of `Rule`s per block, element and object.

slack_sdk checks only some of these (and only in `to_dict()`); Slack rejects the rest at send time.
`block_kit_validation` walks payloads against this table.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

MESSAGE_MAX_BLOCKS = 50
SURFACE_MAX_BLOCKS = 100  # modals and App Home
MESSAGE_TEXT_MAX = 40_000
# Slack answers msg_blocks_too_long around 13k characters of blocks; measured on compact JSON.
MESSAGE_BLOCKS_JSON_MAX = 13_000
TEXT_OBJECT_MAX = 3000

Kind = Literal[
    "text",
    "plain",
    "str",
    "texts",
    "element",
    "elements",
    "context",
    "confirm",
    "options",
    "groups",
    "enum",
    "context_actions",
    "feedback_button",
]


@dataclass(frozen=True)
class Rule:
    """One field of a block, element or composition object and its limits."""

    name: str
    kind: Kind
    max_len: int | None = None
    max_items: int | None = None
    min_items: int = 0
    required: bool = False
    choices: tuple[str, ...] = ()


def text(name: str, max_len: int, *, required: bool = False) -> Rule:
    return Rule(name, "text", max_len=max_len, required=required)


def plain(name: str, max_len: int, *, required: bool = False) -> Rule:
    return Rule(name, "plain", max_len=max_len, required=required)


def string(name: str, max_len: int, *, required: bool = False) -> Rule:
    return Rule(name, "str", max_len=max_len, required=required)


def options(name: str, max_items: int, *, min_items: int = 0, required: bool = False) -> Rule:
    return Rule(name, "options", max_items=max_items, min_items=min_items, required=required)


ACTION_ID = string("action_id", 255)
CONFIRM = Rule("confirm", "confirm")
PLACEHOLDER = plain("placeholder", 150)
_SELECT = (ACTION_ID, PLACEHOLDER, CONFIRM)
_INPUT = (ACTION_ID, PLACEHOLDER)

BLOCKS: dict[str, tuple[Rule, ...]] = {
    "section": (
        text("text", 3000),
        Rule("fields", "texts", max_len=2000, max_items=10),
        Rule("accessory", "element"),
    ),
    "header": (plain("text", 150, required=True),),
    "context": (Rule("elements", "context", max_items=10, min_items=1, required=True),),
    "actions": (Rule("elements", "elements", max_items=25, min_items=1, required=True),),
    "divider": (),
    "image": (
        string("image_url", 3000),
        string("alt_text", 2000, required=True),
        plain("title", 2000),
    ),
    "input": (
        plain("label", 2000, required=True),
        Rule("element", "element", required=True),
        plain("hint", 2000),
    ),
    "markdown": (string("text", 12_000, required=True),),
    "rich_text": (Rule("elements", "str", required=True),),
    "file": (string("external_id", 255, required=True),),
    "video": (plain("title", 200, required=True), string("video_url", 3000, required=True)),
    "table": (),
    "context_actions": (
        Rule("elements", "context_actions", max_items=5, min_items=1, required=True),
    ),
}
MESSAGE_ONLY_BLOCKS = frozenset({"context_actions"})
"""Blocks Slack takes in messages but not in modals or the App Home."""

ELEMENTS: dict[str, tuple[Rule, ...]] = {
    "button": (
        plain("text", 75, required=True),
        ACTION_ID,
        string("value", 2000),
        string("url", 3000),
        Rule("style", "enum", choices=("primary", "danger")),
        string("accessibility_label", 75),
        CONFIRM,
    ),
    "static_select": (
        *_SELECT,
        options("options", 100),
        Rule("option_groups", "groups", max_items=100),
    ),
    "multi_static_select": (
        *_SELECT,
        options("options", 100),
        Rule("option_groups", "groups", max_items=100),
    ),
    "overflow": (ACTION_ID, CONFIRM, options("options", 5, min_items=1, required=True)),
    "checkboxes": (ACTION_ID, CONFIRM, options("options", 10, min_items=1, required=True)),
    "radio_buttons": (ACTION_ID, CONFIRM, options("options", 10, min_items=1, required=True)),
    "image": (string("image_url", 3000), string("alt_text", 2000, required=True)),
    "workflow_button": (plain("text", 75, required=True), ACTION_ID),
    **{
        name: _SELECT
        for name in (
            "external_select",
            "users_select",
            "conversations_select",
            "channels_select",
            "multi_external_select",
            "multi_users_select",
            "multi_conversations_select",
            "multi_channels_select",
            "datepicker",
            "timepicker",
            "datetimepicker",
        )
    },
    **{
        name: _INPUT
        for name in (
            "plain_text_input",
            "email_text_input",
            "url_text_input",
            "number_input",
            "rich_text_input",
            "file_input",
        )
    },
}

FEEDBACK_BUTTON = (
    plain("text", 75, required=True),
    string("value", 2000, required=True),
    string("accessibility_label", 75),
)
CONTEXT_ACTION_ELEMENTS: dict[str, tuple[Rule, ...]] = {
    "feedback_buttons": (
        ACTION_ID,
        Rule("positive_button", "feedback_button", required=True),
        Rule("negative_button", "feedback_button", required=True),
    ),
    "icon_button": (
        string("icon", 255, required=True),
        plain("text", 75, required=True),
        ACTION_ID,
        string("value", 2000),
        string("accessibility_label", 75),
    ),
}
"""What a context_actions block holds (nothing else may hold these)."""

OPTION = (
    text("text", 75, required=True),
    string("value", 150),
    plain("description", 75),
    string("url", 3000),
)
OPTION_GROUP = (plain("label", 75, required=True), options("options", 100, required=True))
CONFIRM_DIALOG = (
    plain("title", 100, required=True),
    text("text", 300, required=True),
    plain("confirm", 30, required=True),
    plain("deny", 30, required=True),
    Rule("style", "enum", choices=("primary", "danger")),
)
MODAL = (
    plain("title", 24, required=True),
    plain("submit", 24),
    plain("close", 24),
    string("callback_id", 255),
    string("private_metadata", 3000),
    string("external_id", 255),
)
HOME = (string("callback_id", 255), string("private_metadata", 3000), string("external_id", 255))
