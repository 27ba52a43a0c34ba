"""Block Kit composition objects and elements as HTML: text, buttons, menus, images."""

from __future__ import annotations

import html
from collections.abc import Callable
from typing import Any

from tests.demo.mrkdwn import Names, mrkdwn_to_html, plain_to_html

JsonDict = dict[str, Any]


def text_to_html(text: JsonDict | None, names: Names) -> str:
    """A text object: ``plain_text`` (emoji shortcodes drawn unless ``emoji`` is false) or
    ``mrkdwn``."""
    if not text:
        return ""
    if text.get("type") == "mrkdwn":
        return mrkdwn_to_html(str(text.get("text", "")), names)
    return plain_to_html(str(text.get("text", "")), emoji=text.get("emoji", True) is not False)


def element_to_html(element: JsonDict, names: Names) -> str:
    """One element of a section accessory, an actions or a context block."""
    render = _ELEMENTS.get(str(element.get("type")), _unknown)
    return render(element, names)


def button_html(
    label: str, *, style: str | None = None, url: str | None = None, small: bool = False
) -> str:
    """A Slack-like button (``primary`` green, ``danger`` red, else plain)."""
    kind = f" btn-{style}" if style in ("primary", "danger") else ""
    size = " btn-small" if small else ""
    link = ' <span class="btn-link">↗</span>' if url else ""
    return f'<span class="btn{kind}{size}">{label}{link}</span>'


def _button(element: JsonDict, names: Names) -> str:
    label = text_to_html(element.get("text"), names)
    return button_html(label, style=element.get("style"), url=element.get("url"))


def _text(element: JsonDict, names: Names) -> str:
    return text_to_html(element, names)


def _image(element: JsonDict, names: Names) -> str:
    alt = html.escape(str(element.get("alt_text", "image")))
    return f'<span class="el-image" title="{alt}">🖼</span>'


def _menu(element: JsonDict, names: Names) -> str:
    chosen = element.get("initial_option") or {}
    label = text_to_html(chosen.get("text") or element.get("placeholder"), names) or "Select…"
    return f'<span class="btn btn-menu">{label} <span class="caret">▾</span></span>'


def _overflow(element: JsonDict, names: Names) -> str:
    return '<span class="btn btn-overflow">⋯</span>'


def _datepicker(element: JsonDict, names: Names) -> str:
    day = element.get("initial_date")
    label = html.escape(str(day)) if day else text_to_html(element.get("placeholder"), names)
    return f'<span class="btn btn-menu">📅 {label or "Select a date"}</span>'


def _choices(element: JsonDict, names: Names) -> str:
    mark = "☐" if element.get("type") == "checkboxes" else "○"
    options = "".join(
        f'<div class="el-option">{mark} {text_to_html(option.get("text"), names)}</div>'
        for option in element.get("options", [])
    )
    return f'<div class="el-options">{options}</div>'


def _feedback(element: JsonDict, names: Names) -> str:
    buttons = (element.get("positive_button"), element.get("negative_button"))
    return "".join(
        button_html(text_to_html(button.get("text"), names), small=True)
        for button in buttons
        if button
    )


def _icon_button(element: JsonDict, names: Names) -> str:
    label = text_to_html(element.get("text"), names)
    return button_html(label, small=True)


def _unknown(element: JsonDict, names: Names) -> str:
    kind = html.escape(str(element.get("type", "?")))
    return f'<span class="b-unknown">[{kind}]</span>'


_MENUS = (
    "static_select",
    "external_select",
    "users_select",
    "conversations_select",
    "channels_select",
    "multi_static_select",
    "multi_external_select",
    "multi_users_select",
    "multi_conversations_select",
    "multi_channels_select",
)
_ELEMENTS: dict[str, Callable[[JsonDict, Names], str]] = {
    "button": _button,
    "plain_text": _text,
    "mrkdwn": _text,
    "image": _image,
    "overflow": _overflow,
    "datepicker": _datepicker,
    "checkboxes": _choices,
    "radio_buttons": _choices,
    "feedback_buttons": _feedback,
    "icon_button": _icon_button,
    **dict.fromkeys(_MENUS, _menu),
}
