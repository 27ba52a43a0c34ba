"""The HTML the page is made of, read back as a small element tree."""

from __future__ import annotations

from dataclasses import dataclass, field
from html.parser import HTMLParser


# ---------------------------------------------------------------- the HTML the page is made of
@dataclass
class Node:
    """One element of a message body's HTML."""

    tag: str
    attrs: dict[str, str] = field(default_factory=dict)
    children: list[Node | str] = field(default_factory=list)

    @property
    def classes(self) -> frozenset[str]:
        return frozenset(self.attrs.get("class", "").split())

    def text(self) -> str:
        return "".join(c if isinstance(c, str) else c.text() for c in self.children)

    def find(self, css_class: str) -> Node | None:
        for child in self.children:
            if isinstance(child, Node):
                if css_class in child.classes:
                    return child
                found = child.find(css_class)
                if found is not None:
                    return found
        return None


_VOID = frozenset({"br", "hr", "img", "wbr"})
BLOCK_TAGS = frozenset(
    {"div", "p", "pre", "blockquote", "ul", "ol", "li", "hr", "figure", "figcaption", "footer"}
)


class _TreeBuilder(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root = Node("root")
        self._open = [self.root]

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        node = Node(tag, {key: value or "" for key, value in attrs})
        self._open[-1].children.append(node)
        if tag not in _VOID:
            self._open.append(node)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._open[-1].children.append(Node(tag, {key: value or "" for key, value in attrs}))

    def handle_endtag(self, tag: str) -> None:
        for depth in range(len(self._open) - 1, 0, -1):
            if self._open[depth].tag == tag:
                del self._open[depth:]
                return

    def handle_data(self, data: str) -> None:
        self._open[-1].children.append(data)


def parse_html(fragment: str) -> Node:
    """An HTML fragment as a tree under a ``root`` node."""
    builder = _TreeBuilder()
    builder.feed(fragment)
    builder.close()
    return builder.root
