"""The layout of a message's body: its blocks and inline elements, the way thread.css lays them
out (closely, not pixel for pixel)."""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from typing import ClassVar

from tests.demo.picture.canvas import (
    BORDER,
    CODE_EDGE,
    CODE_FILL,
    CODE_INK,
    FILE_COLOURS,
    GREEN,
    GREY,
    LIGHT,
    LINK,
    RED,
    SHADED,
    SMALL,
    WHITE,
    Canvas,
    Style,
)
from tests.demo.picture.pieces import (
    Atom,
    Break,
    Piece,
    Space,
    Text,
    _fitting,
    _width,
    emoji_atom,
    line_extent,
    line_up,
    paint_line,
    words,
)
from tests.demo.picture.tree import BLOCK_TAGS, Node


# ---------------------------------------------------------------- layout
class Layout:
    """Lays out a message body's elements top to bottom, drawing onto a canvas."""

    def __init__(self, canvas: Canvas) -> None:
        self.canvas = canvas
        self._groups = itertools.count(1)

    # -- paragraphs
    def paragraph(self, pieces: Sequence[Piece], x: float, y: float, width: float) -> float:
        """Pieces wrapped to ``width`` from ``y``; returns the y under the last line."""
        if not any(isinstance(piece, Text | Atom | Break) for piece in pieces):
            return y
        for line in line_up(pieces, width):
            above, below = line_extent(line)
            paint_line(self.canvas, line, x, y + above)
            y += above + below
        return y

    def inline(
        self,
        nodes: Iterable[Node | str],
        style: Style,
        *,
        group: int = 0,
        box: str = "",
        keep: bool = False,
    ) -> list[Piece]:
        """Inline content as pieces (a block inside is set off by line breaks)."""
        out: list[Piece] = []
        for node in nodes:
            if isinstance(node, str):
                out += words(node, style, group, box, keep=keep)
                continue
            classes = node.classes
            if node.tag == "br":
                out.append(Break(style))
            elif "btn" in classes:
                out.append(self.button(node, style))
            elif "reaction" in classes:
                pill = replace(style, size=12)
                out.append(self.chip(node, pill, pad=8, height=22, radius=11, fill=SHADED))
            elif "el-image" in classes:
                out.append(emoji_atom("🖼", style, group, box))
            elif node.tag == "code" or "mention" in classes:
                out += self._boxed(node, style, keep=keep)
            else:
                inner = _inline_style(node, style)
                block = node.tag in BLOCK_TAGS
                out += [Break(style)] if block and out else []
                out += self.inline(node.children, inner, group=group, box=box, keep=keep)
                out += [Break(style)] if block else []
        return out

    def _boxed(self, node: Node, style: Style, *, keep: bool) -> list[Piece]:
        """A code span or a mention: its pieces share a background, padded at both ends."""
        group = next(self._groups)
        if node.tag == "code":
            box, inner = "code", replace(style, mono=True, size=code_size(style), color=CODE_INK)
        else:
            box, inner = "mention", replace(style, color=LINK)
        above, below = inner.extent()
        pad = Atom(3.0, above, below, group=group, box=box, size=inner.size)
        body = self.inline(node.children, inner, group=group, box=box, keep=keep)
        return [pad, *body, pad]

    def button(self, node: Node, style: Style) -> Atom:
        """A Slack button: green ``primary``, red ``danger``, else white with a grey edge."""
        classes = node.classes
        small = "btn-small" in classes
        label = Style(size=12 if small else 13, bold=not small and "btn-menu" not in classes)
        fill, edge = WHITE, "#bbbbbb"
        if "btn-primary" in classes:
            label, fill, edge = replace(label, color=WHITE), GREEN, GREEN
        elif "btn-danger" in classes:
            label, fill, edge = replace(label, color=WHITE), RED, RED
        return self.chip(
            node, label, pad=8 if small else 12, height=24 if small else 28, fill=fill, edge=edge
        )

    def chip(
        self,
        node: Node,
        style: Style,
        *,
        pad: float,
        height: float,
        radius: float = 4,
        fill: str = WHITE,
        edge: str = BORDER,
    ) -> Atom:
        """Inline content on one line inside a rounded box (buttons, reactions)."""
        pieces = [p for p in self.inline(node.children, style) if not isinstance(p, Break)]
        while pieces and isinstance(pieces[-1], Space):
            pieces.pop()
        width = sum(_width(piece) for piece in pieces) + 2 * pad
        middle = style.size * 0.36
        top = middle + height / 2

        def draw(canvas: Canvas, x: float, baseline: float) -> None:
            box = (x, baseline - top, x + width, baseline - top + height)
            canvas.rect(box, fill=fill, outline=edge, radius=radius)
            paint_line(canvas, pieces, x + pad, baseline)

        return Atom(width, top + 4, height - top + 4, draw, size=style.size)

    # -- blocks
    def blocks(self, node: Node, x: float, y: float, width: float, style: Style) -> float:
        """A node's children top to bottom; runs of inline content become paragraphs."""
        run: list[Node | str] = []
        for child in node.children:
            if isinstance(child, Node) and child.tag in BLOCK_TAGS:
                y = self.paragraph(self.inline(run, style), x, y, width)
                run = []
                y = self.block(child, x, y, width, style)
            else:
                run.append(child)
        return self.paragraph(self.inline(run, style), x, y, width)

    def block(self, node: Node, x: float, y: float, width: float, style: Style) -> float:
        """One block element, as thread.css draws it."""
        classes = node.classes
        for css_class, render in self._BY_CLASS.items():
            if css_class in classes:
                return render(self, node, x, y, width, style)
        if node.tag == "hr":
            self.canvas.line(x, y + 8, x + width, y + 8, BORDER)
            return y + 17
        if node.tag == "pre":
            return self.code_block(node, x, y + 4, width, style) + 4
        if node.tag == "blockquote":
            return self.barred(node, x, y + 4, width, style, BORDER) + 4
        if node.tag in ("ul", "ol"):
            return self.listing(node, x, y + 2, width, style) + 2
        inner = _block_style(classes, style)
        top, bottom = next((_MARGINS[c] for c in sorted(classes) if c in _MARGINS), (0, 0))
        return self.blocks(node, x, y + top, width, inner) + bottom

    def code_block(self, node: Node, x: float, y: float, width: float, style: Style) -> float:
        at = self.canvas.mark()
        mono = Style(size=12, mono=True, leading=1.5)
        pieces = self.inline(node.children, mono, keep=True)
        bottom = self.paragraph(pieces, x + 9, y + 8, width - 18) + 8
        self.canvas.rect(
            (x, y, x + width, bottom), fill=CODE_FILL, outline=CODE_EDGE, radius=4, at=at
        )
        return bottom

    def barred(
        self, node: Node, x: float, y: float, width: float, style: Style, colour: str
    ) -> float:
        """A quote or an attachment: a bar down the left of its content."""
        bottom = self.blocks(node, x + 16, y, width - 16, style)
        self.canvas.rect((x, y, x + 3, max(bottom, y + 4)), fill=colour, radius=1)
        return bottom

    def listing(self, node: Node, x: float, y: float, width: float, style: Style) -> float:
        indent = 0.0
        if found := re.search(r"margin-left:\s*(\d+)px", node.attrs.get("style", "")):
            indent = float(found[1])
        items = [child for child in node.children if isinstance(child, Node) and child.tag == "li"]
        for number, item in enumerate(items, start=1):
            marker = f"{number}." if node.tag == "ol" else "•"
            above, _ = style.extent()
            self.canvas.text(x + indent + 4, y + above, marker, style)
            y = self.blocks(item, x + indent + 22, y, width - indent - 22, style)
        return y

    def section(self, node: Node, x: float, y: float, width: float, style: Style) -> float:
        """Text (and fields) with an accessory, a button or menu, on the right."""
        y += 2
        body = node.find("b-section-body") or Node("div")
        accessory = node.find("b-accessory")
        bottom = y
        if accessory is not None:
            pieces = self.inline(accessory.children, style)
            side = min(sum(_width(piece) for piece in pieces), width * 0.4)
            bottom = self.paragraph(pieces, x + width - side, y, side)
            width -= side + 12
        return max(bottom, self.blocks(body, x, y, width, style)) + 2

    def fields(self, node: Node, x: float, y: float, width: float, style: Style) -> float:
        """Two columns, row by row."""
        cells = [child for child in node.children if isinstance(child, Node)]
        column = (width - 16) / 2
        y += 4
        for row in range(0, len(cells), 2):
            pair = cells[row : row + 2]
            ends = [
                self.blocks(cell, x + i * (column + 16), y, column, style)
                for i, cell in enumerate(pair)
            ]
            y = max(ends) + 4
        return y

    def row(
        self, node: Node, x: float, y: float, width: float, style: Style, *, gap: float
    ) -> float:
        """Items side by side, wrapping: buttons, context elements, reactions."""
        pieces: list[Piece] = []
        for child in node.children:
            if pieces and isinstance(child, Node):
                pieces.append(Space(gap, style))
            pieces += self.inline([child], style)
        return self.paragraph(pieces, x, y, width)

    def actions(self, node: Node, x: float, y: float, width: float, style: Style) -> float:
        return self.row(node, x, y + 4, width, style, gap=8)

    def context(self, node: Node, x: float, y: float, width: float, style: Style) -> float:
        return self.row(node, x, y + 4, width, SMALL, gap=8) + 4

    def reactions(self, node: Node, x: float, y: float, width: float, style: Style) -> float:
        return self.row(node, x, y + 4, width, style, gap=4)

    def attachment(self, node: Node, x: float, y: float, width: float, style: Style) -> float:
        found = re.search(r"#[0-9a-fA-F]{6}", node.attrs.get("style", ""))
        return self.barred(node, x, y + 4, width, style, found[0] if found else BORDER) + 4

    def file(self, node: Node, x: float, y: float, width: float, style: Style) -> float:
        """A file chip: the coloured type label, the name in bold, type and size in grey."""
        icon = node.find("file-icon") or Node("div")
        name_node, meta_node = node.find("file-name"), node.find("file-meta")
        name = Style(size=14, bold=True)
        meta = Style(size=12, color=GREY)
        name_text = name_node.text() if name_node else ""
        meta_text = meta_node.text() if meta_node else ""
        natural = max(name.font.getlength(name_text), meta.font.getlength(meta_text))
        chip = min(width, max(300.0, 10 + 40 + 10 + natural + 14))
        room = chip - 64 - 14
        top = y + 6
        self.canvas.rect((x, top, x + chip, top + 60), fill=WHITE, outline=BORDER, radius=12)
        kind = next((c[3:] for c in icon.classes if c.startswith("ft-")), "")
        fill = FILE_COLOURS.get(kind, GREY)
        self.canvas.rect((x + 10, top + 10, x + 50, top + 50), fill=fill, radius=8)
        self.canvas.centred(x + 30, top + 30, icon.text(), Style(size=10, bold=True, color=WHITE))
        self.canvas.text(x + 64, top + 27, _clipped(name_text, name, room), name)
        self.canvas.text(x + 64, top + 46, _clipped(meta_text, meta, room), meta)
        return top + 62

    def preview(self, node: Node, x: float, y: float, width: float, style: Style) -> float:
        """A file's first lines, clipped at the right edge as Slack clips them."""
        mono = Style(size=11, mono=True)
        pre = next((c for c in node.children if isinstance(c, Node) and c.tag == "pre"), None)
        lines = (pre.text() if pre else "").replace("\t", "    ").split("\n")
        top = y + 2
        self.canvas.rect(
            (x, top, x + width, top + 14 + 16 * len(lines)),
            fill=CODE_FILL,
            outline=CODE_EDGE,
            radius=4,
        )
        for number, line in enumerate(lines):
            text = _clipped(line, mono, width - 18, ellipsis="")
            self.canvas.text(x + 9, top + 19 + 16 * number, text, mono)
        y = top + 14 + 16 * len(lines)
        more = node.find("file-more")
        if more is not None:
            y = self.paragraph(words(more.text(), SMALL), x, y + 2, width)
        return y

    def image(self, node: Node, x: float, y: float, width: float, style: Style) -> float:
        """An image block: a framed box naming the image, and its title."""
        frame = node.find("b-image-box") or Node("div")
        side = min(360.0, width)
        top = y + 4
        self.canvas.rect((x, top, x + side, top + 120), outline=BORDER, radius=8)
        pieces = self.inline(frame.children, Style(size=13, color=GREY))
        line = line_up(pieces, side - 16)[:1]
        if line:
            span = sum(_width(piece) for piece in line[0])
            paint_line(self.canvas, line[0], x + (side - span) / 2, top + 64)
        caption = next((c for c in node.children if isinstance(c, Node) and c.tag != "div"), None)
        bottom = top + 124
        return self.blocks(caption, x, bottom, width, style) if caption else bottom

    def header(self, node: Node, x: float, y: float, width: float, style: Style) -> float:
        return self.blocks(node, x, y + 4, width, Style(size=17, bold=True, leading=1.33)) + 2

    _BY_CLASS: ClassVar[dict[str, Callable[[Layout, Node, float, float, float, Style], float]]] = {
        "b-header": header,
        "b-section": section,
        "b-fields": fields,
        "b-actions": actions,
        "b-context": context,
        "reactions": reactions,
        "attachment": attachment,
        "file": file,
        "file-preview": preview,
        "b-image": image,
    }


_MARGINS = {"b-trailer": (2, 0), "b-text": (0, 0), "only-you": (0, 2)}


def code_size(style: Style) -> int:
    """Inline code a little smaller than the text around it, as Slack sets it."""
    return 12 if style.size >= 14 else 11


def _inline_style(node: Node, style: Style) -> Style:
    classes = node.classes
    if node.tag in ("b", "strong"):
        return replace(style, bold=True)
    if node.tag in ("i", "em"):
        return replace(style, italic=True)
    if node.tag in ("s", "del", "strike"):
        return replace(style, strike=True)
    if node.tag == "a":
        return replace(style, color=LINK)
    if classes & {"edited", "time", "gutter-time"}:
        return replace(style, size=12, color=GREY)
    if "b-unknown" in classes:
        return replace(style, size=12, italic=True, color=LIGHT)
    return style


def _block_style(classes: frozenset[str], style: Style) -> Style:
    if "att-title" in classes:
        return replace(style, bold=True)
    if classes & {"att-footer", "file-more", "only-you"}:
        return replace(style, size=12, color=GREY)
    if "b-unknown" in classes:
        return replace(style, size=12, italic=True, color=LIGHT)
    return style


def _clipped(text: str, style: Style, room: float, *, ellipsis: str = "…") -> str:
    """``text`` cut to fit ``room`` (with an ellipsis when it was cut)."""
    if style.font.getlength(text) <= room:
        return text
    n = _fitting(text, style, room - style.font.getlength(ellipsis))
    return text[:n] + ellipsis
