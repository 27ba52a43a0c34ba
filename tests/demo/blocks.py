"""Block Kit blocks as HTML, laid out the way Slack lays them out in a message.

Every block type a message can carry has a rendering; one this module does not know is shown as
a visible placeholder naming its type, never dropped.
"""

from __future__ import annotations

import html
from collections.abc import Callable
from typing import Any

from tests.demo.elements import element_to_html, text_to_html
from tests.demo.mrkdwn import Names
from tests.demo.rich_text import rich_text_to_html

JsonDict = dict[str, Any]


def blocks_to_html(blocks: list[JsonDict], names: Names, *, trailer: str = "") -> str:
    """A message's blocks; ``trailer`` (e.g. "(edited)") ends the last block's text, as in
    Slack, or follows the blocks when the last one has no text."""
    if not blocks:
        return trailer
    *before, last = blocks
    rendered = [block_to_html(block, names) for block in before]
    if last.get("type") in _TAKES_TRAILER:
        rendered.append(block_to_html(last, names, trailer=trailer))
    else:
        rendered.append(block_to_html(last, names))
        rendered.append(f'<div class="b-trailer">{trailer}</div>' if trailer else "")
    return "".join(rendered)


def block_to_html(block: JsonDict, names: Names, *, trailer: str = "") -> str:
    """One block (``trailer`` is added to a block with text)."""
    render = _BLOCKS.get(str(block.get("type")), _unknown)
    return render(block, names, _spaced(trailer))


def _spaced(trailer: str) -> str:
    return f" {trailer}" if trailer else ""


def _header(block: JsonDict, names: Names, trailer: str) -> str:
    return f'<div class="b-header">{text_to_html(block.get("text"), names)}</div>'


def _section(block: JsonDict, names: Names, trailer: str) -> str:
    parts = []
    if block.get("text"):
        parts.append(f'<div class="b-text">{text_to_html(block["text"], names)}{trailer}</div>')
        trailer = ""
    if block.get("fields"):
        fields = "".join(
            f'<div class="b-field">{text_to_html(field, names)}</div>' for field in block["fields"]
        )
        parts.append(f'<div class="b-fields">{fields}</div>{trailer}')
    body = f'<div class="b-section-body">{"".join(parts)}</div>'
    accessory = block.get("accessory")
    side = ""
    if accessory:
        side = f'<div class="b-accessory">{element_to_html(accessory, names)}</div>'
    return f'<div class="b-section">{body}{side}</div>'


def _divider(block: JsonDict, names: Names, trailer: str) -> str:
    return '<hr class="b-divider">'


def _context(block: JsonDict, names: Names, trailer: str) -> str:
    items = "".join(
        f'<span class="b-context-item">{element_to_html(element, names)}</span>'
        for element in block.get("elements", [])
    )
    return f'<div class="b-context">{items}{trailer}</div>'


def _actions(block: JsonDict, names: Names, trailer: str) -> str:
    items = "".join(element_to_html(element, names) for element in block.get("elements", []))
    return f'<div class="b-actions">{items}</div>'


def _image(block: JsonDict, names: Names, trailer: str) -> str:
    title = text_to_html(block.get("title"), names) if block.get("title") else ""
    alt = html.escape(str(block.get("alt_text", "image")))
    return (
        f'<figure class="b-image"><div class="b-image-box" title="{alt}">🖼 {alt}</div>'
        f"<figcaption>{title}</figcaption></figure>"
    )


def _markdown(block: JsonDict, names: Names, trailer: str) -> str:
    text = {"type": "mrkdwn", "text": _markdown_as_mrkdwn(str(block.get("text", "")))}
    return f'<div class="b-text b-markdown">{text_to_html(text, names)}{trailer}</div>'


def _markdown_as_mrkdwn(text: str) -> str:
    """Standard markdown's bold and headings in mrkdwn terms (the rest reads the same)."""
    lines = []
    for line in text.replace("**", "*").split("\n"):
        heading = line.lstrip("#")
        lines.append(f"*{heading.strip()}*" if heading != line and heading.strip() else line)
    return "\n".join(lines)


def _rich_text(block: JsonDict, names: Names, trailer: str) -> str:
    return f'<div class="b-text">{rich_text_to_html(block, names)}{trailer}</div>'


def _unknown(block: JsonDict, names: Names, trailer: str) -> str:
    kind = html.escape(str(block.get("type", "?")))
    return f'<div class="b-unknown">[{kind} block]</div>'


_TAKES_TRAILER = {"section", "context", "markdown", "rich_text"}
_BLOCKS: dict[str, Callable[[JsonDict, Names, str], str]] = {
    "header": _header,
    "section": _section,
    "divider": _divider,
    "context": _context,
    "actions": _actions,
    "context_actions": _actions,
    "image": _image,
    "markdown": _markdown,
    "rich_text": _rich_text,
}
