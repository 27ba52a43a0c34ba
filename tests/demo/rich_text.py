"""Rich text blocks (what Slack's composer sends, and some apps) as HTML."""

from __future__ import annotations

import html
from collections.abc import Callable
from typing import Any

from tests.demo.emoji import emoji
from tests.demo.mrkdwn import Names, slack_date

JsonDict = dict[str, Any]
_STYLE_TAGS = (("code", "code"), ("bold", "b"), ("italic", "i"), ("strike", "s"))


def rich_text_to_html(block: JsonDict, names: Names) -> str:
    """A ``rich_text`` block: sections, lists, preformatted text and quotes."""
    return "".join(_part(part, names) for part in block.get("elements", []))


def _part(part: JsonDict, names: Names) -> str:
    kind = part.get("type")
    inline = _inline(part.get("elements", []), names)
    if kind == "rich_text_preformatted":
        return f'<pre class="code-block">{inline}</pre>'
    if kind == "rich_text_quote":
        return f"<blockquote>{inline}</blockquote>"
    if kind == "rich_text_list":
        return _list(part, names)
    return f"<span>{inline}</span>"


def _list(part: JsonDict, names: Names) -> str:
    tag = "ol" if part.get("style") == "ordered" else "ul"
    indent = int(part.get("indent", 0))
    items = "".join(
        f"<li>{_inline(item.get('elements', []), names)}</li>" for item in part.get("elements", [])
    )
    return f'<{tag} class="rt-list" style="margin-left:{indent * 20}px">{items}</{tag}>'


def _inline(elements: list[JsonDict], names: Names) -> str:
    return "".join(_styled(element, names) for element in elements)


def _styled(element: JsonDict, names: Names) -> str:
    render = _INLINE.get(str(element.get("type")), _unknown)
    rendered = render(element, names)
    style = element.get("style") or {}
    for key, tag in _STYLE_TAGS:
        if style.get(key):
            rendered = f"<{tag}>{rendered}</{tag}>"
    return rendered


def _text(element: JsonDict, names: Names) -> str:
    return html.escape(str(element.get("text", ""))).replace("\n", "<br>")


def _link(element: JsonDict, names: Names) -> str:
    url = str(element.get("url", ""))
    label = html.escape(str(element.get("text") or url))
    return f'<a href="{html.escape(url, quote=True)}">{label}</a>'


def _user(element: JsonDict, names: Names) -> str:
    name = html.escape(names.person(str(element.get("user_id", ""))))
    return f'<span class="mention">@{name}</span>'


def _channel(element: JsonDict, names: Names) -> str:
    name = html.escape(names.channel(str(element.get("channel_id", ""))))
    return f'<span class="mention">#{name}</span>'


def _broadcast(element: JsonDict, names: Names) -> str:
    return f'<span class="mention">@{html.escape(str(element.get("range", "here")))}</span>'


def _emoji(element: JsonDict, names: Names) -> str:
    if element.get("unicode"):
        points = str(element["unicode"]).split("-")
        return "".join(chr(int(point, 16)) for point in points)
    return html.escape(emoji(str(element.get("name", ""))))


def _date(element: JsonDict, names: Names) -> str:
    spec = f"{element.get('timestamp', '')}^{element.get('format', '{date_num} {time}')}"
    return html.escape(slack_date(spec, str(element.get("fallback", "")), names.today))


def _unknown(element: JsonDict, names: Names) -> str:
    return f'<span class="b-unknown">[{html.escape(str(element.get("type", "?")))}]</span>'


_INLINE: dict[str, Callable[[JsonDict, Names], str]] = {
    "text": _text,
    "link": _link,
    "user": _user,
    "channel": _channel,
    "broadcast": _broadcast,
    "emoji": _emoji,
    "date": _date,
    "usergroup": lambda element, names: '<span class="mention">@group</span>',
}
