"""The thread as a PNG drawn with Pillow, for machines without Chromium.

It draws what the page shows, from the same pieces: the entries, names, grouping and times of
page.py, and each message's body exactly as page.py renders it from the Block Kit payloads
(blocks.py, mrkdwn.py, rich_text.py, files.py), read back as a small element tree and laid out
the way thread.css lays it out (closely, not pixel for pixel). The fonts are the DejaVu faces
matplotlib ships, so nothing depends on the system's fonts. They have no emoji, so each emoji is
drawn as a small coloured mark: a badge with a symbol, a dot, or a coloured symbol.
"""

from __future__ import annotations

import functools
import io
import itertools
import math
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from html.parser import HTMLParser
from pathlib import Path
from typing import ClassVar

import matplotlib
from matplotlib.ft2font import FT2Font
from PIL import Image, ImageDraw, ImageFont

from tests.demo.page import (
    Entry,
    ThreadView,
    _continues,
    _is_bot,
    _name,
    message_body,
    thread_entries,
)
from tests.demo.people import BOT_COLOUR, colour, initials

FONT_DIR = Path(matplotlib.get_data_path()) / "fonts" / "ttf"
PANE_WIDTH = 820
PAGE = "#f4f4f5"
WHITE = "#ffffff"
INK = "#1d1c1d"
GREY = "#616061"
LIGHT = "#9a999a"
BORDER = "#dddddd"
RULE = "#e8e8e8"
LINK = "#1264a3"
CODE_INK = "#c01343"
CODE_FILL = "#f7f7f7"
CODE_EDGE = "#dedede"
MENTION_FILL = "#e3f1f9"
GREEN = "#007a5a"
RED = "#e01e5a"
SHADED = "#f8f8f8"
FILE_COLOURS = {"text": "#3a7bd5", "markdown": "#2f7d6d"}

Draw = ImageDraw.ImageDraw
Paint = Callable[["Canvas", float, float], None]
"""Draws an inline atom with its left edge at x and the line's baseline at y."""


# ---------------------------------------------------------------- fonts and styles
_FACES = {
    (False, False, False): "DejaVuSans.ttf",
    (False, True, False): "DejaVuSans-Bold.ttf",
    (False, False, True): "DejaVuSans-Oblique.ttf",
    (False, True, True): "DejaVuSans-BoldOblique.ttf",
    (True, False, False): "DejaVuSansMono.ttf",
    (True, True, False): "DejaVuSansMono-Bold.ttf",
    (True, False, True): "DejaVuSansMono-Oblique.ttf",
    (True, True, True): "DejaVuSansMono-BoldOblique.ttf",
}


@functools.cache
def load_font(face: str, size: int) -> ImageFont.FreeTypeFont:
    """One DejaVu face at one size (the basic layout engine, the same on every machine)."""
    return ImageFont.truetype(str(FONT_DIR / face), size, layout_engine=ImageFont.Layout.BASIC)


@functools.cache
def covered(face: str) -> frozenset[int]:
    """The code points a face has glyphs for."""
    return frozenset(FT2Font(str(FONT_DIR / face)).get_charmap())


@dataclass(frozen=True)
class Style:
    """How a run of text looks."""

    size: int = 14
    bold: bool = False
    italic: bool = False
    mono: bool = False
    color: str = INK
    strike: bool = False
    leading: float = 1.45

    @property
    def face(self) -> str:
        return _FACES[(self.mono, self.bold, self.italic)]

    @property
    def font(self) -> ImageFont.FreeTypeFont:
        return load_font(self.face, self.size)

    def extent(self) -> tuple[float, float]:
        """Space above and below the baseline a line of this text takes."""
        ascent, descent = self.font.getmetrics()
        half = (self.size * self.leading - ascent - descent) / 2
        return ascent + half, descent + half


BODY = Style()
SMALL = Style(size=12, color=GREY)


# ---------------------------------------------------------------- drawing, deferred
@dataclass(frozen=True)
class Written:
    """A text the canvas drew: its style and where it starts and ends across."""

    text: str
    style: Style
    left: float
    right: float


class Canvas:
    """Drawing operations kept in order, replayed once the picture's height is known."""

    def __init__(self) -> None:
        self.ops: list[Callable[[Draw], None]] = []
        self.written: list[Written] = []
        """Every text drawn, in order, with where and how."""

    def mark(self) -> int:
        """Where the next operation goes (to put a background under what follows)."""
        return len(self.ops)

    def text(self, x: float, baseline: float, text: str, style: Style) -> None:
        font, fill = style.font, style.color
        self.written.append(Written(text, style, x, x + font.getlength(text)))
        self.ops.append(lambda d: d.text((x, baseline), text, font=font, fill=fill, anchor="ls"))
        if style.strike:
            middle = baseline - style.size * 0.3
            self.line(x, middle, x + font.getlength(text), middle, style.color)

    def centred(self, cx: float, cy: float, text: str, style: Style) -> None:
        font, fill = style.font, style.color
        half = font.getlength(text) / 2
        self.written.append(Written(text, style, cx - half, cx + half))
        self.ops.append(lambda d: d.text((cx, cy), text, font=font, fill=fill, anchor="mm"))

    def rect(
        self,
        box: tuple[float, float, float, float],
        *,
        fill: str | None = None,
        outline: str | None = None,
        radius: float = 0,
        at: int | None = None,
    ) -> None:
        def op(d: Draw) -> None:
            d.rounded_rectangle(box, radius=radius, fill=fill, outline=outline, width=1)

        self.ops.insert(len(self.ops) if at is None else at, op)

    def ellipse(self, box: tuple[float, float, float, float], fill: str, outline: str) -> None:
        self.ops.append(lambda d: d.ellipse(box, fill=fill, outline=outline))

    def line(self, x0: float, y0: float, x1: float, y1: float, fill: str, width: int = 1) -> None:
        self.ops.append(lambda d: d.line((x0, y0, x1, y1), fill=fill, width=width))

    def png(self, width: int, height: int) -> bytes:
        image = Image.new("RGB", (width, height), PAGE)
        draw = ImageDraw.Draw(image)
        for op in self.ops:
            op(draw)
        out = io.BytesIO()
        image.save(out, format="PNG", optimize=True)
        return out.getvalue()


# ---------------------------------------------------------------- emoji
@dataclass(frozen=True)
class Mark:
    """How one emoji is drawn: a ``badge`` (rounded square with a symbol), a ``dot``, or a
    coloured ``symbol``."""

    kind: str
    colour: str
    symbol: str = ""
    ink: str = WHITE


def _badge(colour: str, symbol: str, ink: str = WHITE) -> Mark:
    return Mark("badge", colour, symbol, ink)


def _symbol(colour: str, symbol: str) -> Mark:
    return Mark("symbol", colour, symbol)


def _dot(colour: str) -> Mark:
    return Mark("dot", colour)


MARKS: dict[str, Mark] = {
    "✅": _badge("#2bac76", "✔"),
    "✔": _symbol(INK, "✔"),
    "❌": _symbol("#dd2e44", "✘"),
    "⚠": _symbol("#e8a317", "⚠"),
    "🚨": _badge("#dd2e44", "!"),
    "🔥": _badge("#f4900c", "♨"),
    "👀": _symbol(GREY, "◉"),
    "👁": _symbol(GREY, "◉"),
    "🔍": _symbol("#3b88c3", "⚲"),
    "🔎": _symbol("#3b88c3", "⚲"),
    "📝": _badge("#c69c6d", "✎"),
    "📋": _badge("#c69c6d", "≡"),
    "📄": _badge("#8899a6", "≡"),
    "📖": _badge("#5c913b", "≡"),
    "📚": _badge("#3b88c3", "≡"),
    "📎": _symbol(GREY, "§"),
    "🎯": _symbol("#dd2e44", "◎"),
    "🩹": _badge("#d9a066", "✚"),
    "🛠": _badge("#8899a6", "⚒"),
    "🔧": _badge("#8899a6", "⚒"),
    "ℹ": _badge("#3b88c3", "i"),
    "⏳": _badge("#e8a317", "◷"),
    "🔴": _dot("#dd2e44"),
    "🟠": _dot("#f4900c"),
    "🟡": _dot("#fdcb58"),
    "🟢": _dot("#78b159"),
    "⚪": _dot("#e6e7e8"),
    "🚫": _symbol("#dd2e44", "⊘"),
    "🎉": _symbol("#dd2e44", "✶"),
    "🤖": _badge("#8899a6", "☺"),
    "🏅": _badge("#e8a317", "★"),
    "💡": _symbol("#e8a317", "✦"),
    "❓": _symbol("#dd2e44", "?"),
    "❔": _symbol("#8899a6", "?"),
    "💬": _badge("#8899a6", "…"),
    "🔁": _badge("#3b88c3", "↻"),
    "👍": _badge("#ffcc4d", "+1", INK),
    "👎": _badge("#ffcc4d", "−1", INK),
    "🖼": _badge("#8899a6", "▨"),
    "📅": _badge("#dd2e44", "▦"),
    "🆕": _badge("#3b88c3", "N"),
    "➕": _symbol(INK, "+"),
    "➖": _symbol(INK, "−"),
    "🚀": _symbol("#dd2e44", "➚"),
    "⏭": _symbol(INK, "⇥"),
    "🗄": _badge("#8899a6", "▤"),
    "⚡": _symbol("#e8a317", "⚡"),
}
UNKNOWN_MARK = _dot("#c8c8c8")
"""Any other character the fonts lack."""
_INVISIBLE = dict.fromkeys(map(ord, "\ufe0e\ufe0f\u200d"), None)


# ---------------------------------------------------------------- inline pieces
@dataclass(frozen=True)
class Text:
    """Characters in one style; ``group`` ties the pieces of one code span or mention."""

    text: str
    style: Style
    group: int = 0
    box: str = ""

    @property
    def width(self) -> float:
        return float(self.style.font.getlength(self.text))

    def extent(self) -> tuple[float, float]:
        return self.style.extent()

    def paint(self, canvas: Canvas, x: float, baseline: float) -> None:
        canvas.text(x, baseline, self.text, self.style)


@dataclass(frozen=True)
class Atom:
    """Something drawn whole: an emoji, a button, a pill; never split across lines."""

    width: float
    above: float
    below: float
    draw: Paint | None = None
    group: int = 0
    box: str = ""
    size: int = 14

    def extent(self) -> tuple[float, float]:
        return self.above, self.below

    def paint(self, canvas: Canvas, x: float, baseline: float) -> None:
        if self.draw is not None:
            self.draw(canvas, x, baseline)


@dataclass(frozen=True)
class Space:
    """Where a line may wrap; ``keep`` for preformatted text, which keeps leading spaces."""

    width: float
    style: Style
    keep: bool = False
    group: int = 0


@dataclass(frozen=True)
class Break:
    """A forced line end (``<br>``); the style gives an empty line its height."""

    style: Style


Ink = Text | Atom
Piece = Text | Atom | Space | Break


def _width(piece: Piece) -> float:
    return 0.0 if isinstance(piece, Break) else piece.width


def _extent(piece: Piece) -> tuple[float, float]:
    if isinstance(piece, Space | Break):
        return piece.style.extent()
    return piece.extent()


def _group(piece: Piece) -> int:
    return 0 if isinstance(piece, Break) else piece.group


def emoji_atom(char: str, style: Style, group: int = 0, box: str = "") -> Atom:
    """An emoji as a mark about the size of a capital letter, centred on the text."""
    mark = MARKS.get(char, UNKNOWN_MARK)
    side = round(style.size * 1.15)
    symbol = Style(size=max(8, round(side * 0.72)), bold=True, color=mark.ink)
    if mark.kind == "symbol":
        symbol = Style(size=round(style.size * 1.05), bold=True, color=mark.colour)
    width = float(side)
    if mark.kind != "dot":
        width = max(width, symbol.font.getlength(mark.symbol) + 4)
    middle = style.size * 0.36

    def draw(canvas: Canvas, x: float, baseline: float) -> None:
        cx, cy = x + 1 + width / 2, baseline - middle
        top, bottom = cy - side / 2, cy + side / 2
        if mark.kind == "dot":
            r = side * 0.42
            canvas.ellipse((cx - r, cy - r, cx + r, cy + r), mark.colour, _darker(mark.colour))
            return
        if mark.kind == "badge":
            canvas.rect((x + 1, top, x + 1 + width, bottom), fill=mark.colour, radius=3)
        canvas.centred(cx, cy, mark.symbol, symbol)

    above, below = style.extent()
    return Atom(width + 2, max(above, middle + side / 2), below, draw, group, box, style.size)


def _darker(hex_colour: str) -> str:
    r, g, b = (int(hex_colour[i : i + 2], 16) for i in (1, 3, 5))
    return "#{:02x}{:02x}{:02x}".format(*(max(0, c - 40) for c in (r, g, b)))


def glyph_pieces(text: str, style: Style, group: int = 0, box: str = "") -> list[Ink]:
    """Text as runs the fonts can draw, and emoji marks for the rest."""
    out: list[Ink] = []
    run, run_style = "", style
    for char in text.translate(_INVISIBLE):
        if 0x1F3FB <= ord(char) <= 0x1F3FF:  # skin tones: the mark stands for the whole emoji
            continue
        chosen = _drawn_with(char, style)
        if chosen is None or (chosen != run_style and run):
            if run:
                out.append(Text(run, run_style, group, box))
            run = ""
        if chosen is None:
            out.append(emoji_atom(char, style, group, box))
            continue
        run, run_style = run + char, chosen
    if run:
        out.append(Text(run, run_style, group, box))
    return out


def _drawn_with(char: str, style: Style) -> Style | None:
    """The style whose face has ``char`` (the sans face when the monospace one lacks it), or
    None for an emoji or a character no face has."""
    if char in MARKS:
        return None
    for candidate in (style, replace(style, mono=False)):
        if ord(char) in covered(candidate.face):
            return candidate
    return None


def words(
    text: str, style: Style, group: int = 0, box: str = "", *, keep: bool = False
) -> list[Piece]:
    """Text split at spaces; newlines break lines in preformatted text and are spaces
    elsewhere."""
    out: list[Piece] = []
    space = float(style.font.getlength(" "))
    lines = text.replace("\t", "    ").split("\n") if keep else [text]
    for number, line in enumerate(lines):
        if number:
            out.append(Break(style))
        for part in re.split(r"( +)" if keep else r"(\s+)", line):
            if not part:
                continue
            if part.isspace():
                width = space * len(part) if keep else space
                out.append(Space(width, style, keep=keep, group=group))
            else:
                out.extend(glyph_pieces(part, style, group, box))
    return out


# ---------------------------------------------------------------- lines
def line_up(pieces: Sequence[Piece], width: float) -> list[list[Piece]]:
    """Pieces broken into lines no wider than ``width``: at spaces, and inside a word only
    when the word alone is wider than a line."""
    lines: list[list[Piece]] = []
    line: list[Piece] = []
    used = 0.0
    pending: list[Space] = []
    for token in _tokens(pieces):
        if isinstance(token, Break):
            lines.append([*line, token])
            line, used, pending = [], 0.0, []
        elif isinstance(token, Space):
            if line or token.keep:
                pending.append(token)
        else:
            spaces = sum(space.width for space in pending)
            wide = sum(piece.width for piece in token)
            if line and used + spaces + wide > width:
                lines.append(line)
                line, used = [], 0.0
            else:
                line += pending
                used += spaces
            pending = []
            if wide > width - used and not line:
                *full, last = split_word(token, width)
                lines += [list(chunk) for chunk in full]
                line, used = list(last), sum(piece.width for piece in last)
            else:
                line += token
                used += wide
    if line:
        lines.append(line)
    return lines


def _tokens(pieces: Sequence[Piece]) -> Iterator[Break | Space | list[Ink]]:
    word: list[Ink] = []
    for piece in pieces:
        if isinstance(piece, Text | Atom):
            word.append(piece)
            continue
        if word:
            yield word
            word = []
        yield piece
    if word:
        yield word


def split_word(word: Sequence[Ink], width: float) -> list[list[Ink]]:
    """A word too long for a line, in line-wide chunks (at least one character each)."""
    chunks: list[list[Ink]] = [[]]
    used = 0.0
    for piece in word:
        if isinstance(piece, Atom):
            if chunks[-1] and used + piece.width > width:
                chunks.append([])
                used = 0.0
            chunks[-1].append(piece)
            used += piece.width
            continue
        rest = piece.text
        while rest:
            n = _fitting(rest, piece.style, width - used)
            if n == 0 and chunks[-1]:
                chunks.append([])
                used = 0.0
                continue
            part = replace(piece, text=rest[: max(n, 1)])
            chunks[-1].append(part)
            used += part.width
            rest = rest[max(n, 1) :]
    return [chunk for chunk in chunks if chunk]


def _fitting(text: str, style: Style, room: float) -> int:
    n = 0
    while n < len(text) and style.font.getlength(text[: n + 1]) <= room:
        n += 1
    return n


def paint_line(canvas: Canvas, line: Sequence[Piece], x: float, baseline: float) -> None:
    """One line: the backgrounds of code spans and mentions first, then the ink."""
    lefts = list(itertools.accumulate((_width(piece) for piece in line), initial=x))
    groups: dict[int, list[int]] = {}
    for index, piece in enumerate(line):
        if _group(piece):
            groups.setdefault(_group(piece), []).append(index)
    for indexes in groups.values():
        inks = [p for p in (line[i] for i in indexes) if isinstance(p, Text | Atom)]
        if not inks or not inks[0].box:
            continue
        size = max(p.style.size if isinstance(p, Text) else p.size for p in inks)
        box = (
            lefts[indexes[0]],
            baseline - size * 1.0,
            lefts[indexes[-1] + 1],
            baseline + size / 3,
        )
        if inks[0].box == "code":
            canvas.rect(box, fill=CODE_FILL, outline=CODE_EDGE, radius=3)
        else:
            canvas.rect(box, fill=MENTION_FILL, radius=3)
    for piece, left in zip(line, lefts, strict=False):
        if isinstance(piece, Text | Atom):
            piece.paint(canvas, left, baseline)


def line_extent(line: Sequence[Piece]) -> tuple[float, float]:
    extents = [_extent(piece) for piece in line] or [BODY.extent()]
    return max(a for a, _ in extents), max(b for _, b in extents)


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


# ---------------------------------------------------------------- the thread
@dataclass(frozen=True)
class Picture:
    """The thread laid out: what to draw, and the picture's size."""

    canvas: Canvas
    width: int
    height: int

    def png(self) -> bytes:
        return self.canvas.png(self.width, self.height)


def draw_thread(view: ThreadView, *, width: int = 900) -> bytes:
    """The thread as a PNG ``width`` pixels wide and as tall as its messages need."""
    return lay_out_thread(view, width=width).png()


def lay_out_thread(view: ThreadView, *, width: int = 900) -> Picture:
    """The thread laid out as Slack's thread pane, on a page ``width`` pixels wide."""
    canvas = Canvas()
    layout = Layout(canvas)
    pane = min(float(PANE_WIDTH), width - 24.0)
    x = (width - pane) / 2
    top = 24.0
    under_pane = canvas.mark()
    y = _pane_head(layout, view, x, top, pane)
    entries = thread_entries(view)
    previous: Entry | None = None
    for number, entry in enumerate(entries):
        grouped = number > 1 and _continues(view, previous, entry)
        if number == 1:
            replies = sum(1 for e in entries[1:] if not e.ephemeral)
            y = _replies_line(layout, replies, x, y, pane)
        elif number > 1 and not grouped:
            canvas.line(x + 20, y, x + pane - 20, y, "#eeeeee")
        y = _message(layout, view, entry, x, y, pane, grouped=grouped)
        previous = entry if number else None
    if view.note:
        canvas.line(x, y, x + pane, y, RULE)
        y = layout.paragraph(words(view.note, SMALL), x + 20, y + 10, pane - 40) + 10
    canvas.rect((x, top, x + pane, y), fill=WHITE, outline=BORDER, radius=8, at=under_pane)
    return Picture(canvas, width, math.ceil(y + 24))


def write_picture(view: ThreadView, png: Path, *, width: int = 900) -> Path:
    """``draw_thread`` into ``png``."""
    png.write_bytes(draw_thread(view, width=width))
    return png


def _pane_head(layout: Layout, view: ThreadView, x: float, y: float, width: float) -> float:
    title = words("Thread", Style(size=18, bold=True))
    channel = words(f"# {view.channel}", Style(size=13, color=GREY))
    bottom = layout.paragraph([*title, Space(10, BODY), *channel], x + 20, y + 12, width - 40)
    layout.canvas.line(x, bottom + 12, x + width, bottom + 12, RULE)
    return bottom + 13


def _replies_line(layout: Layout, count: int, x: float, y: float, width: float) -> float:
    style = Style(size=13, color=GREY)
    label = f"{count} {'reply' if count == 1 else 'replies'}"
    above, below = style.extent()
    baseline = y + 4 + above
    layout.canvas.text(x + 20, baseline, label, style)
    start = x + 20 + style.font.getlength(label) + 10
    middle = baseline - style.size * 0.35
    layout.canvas.line(start, middle, x + width - 20, middle, RULE)
    return baseline + below + 4


def _message(
    layout: Layout,
    view: ThreadView,
    entry: Entry,
    x: float,
    y: float,
    width: float,
    *,
    grouped: bool,
) -> float:
    """One message: the avatar (or, continuing a group, the time) in the gutter, then the name,
    badge and time, then the body."""
    canvas, message, author = layout.canvas, entry.message, entry.author
    shown = view.shown_at(message["ts"])
    under = canvas.mark()
    top = y
    y += 2 if grouped else 8
    gutter, content = x + 20, x + 20 + 36 + 8
    room = width - 40 - 44
    bottom = y
    if grouped:
        stamp = Style(size=11, color=LIGHT)
        label = f"{shown:%H:%M}"
        canvas.text(gutter + 36 - stamp.font.getlength(label), y + 15, label, stamp)
    else:
        name = _name(view, message, author)
        bot = author == view.bot_user
        canvas.rect(
            (gutter, y + 2, gutter + 36, y + 38),
            fill=BOT_COLOUR if bot else colour(author),
            radius=6,
        )
        canvas.centred(gutter + 18, y + 20, initials(name), Style(size=14, bold=True, color=WHITE))
        bottom = y + 40
        y = layout.paragraph(
            _meta(name, f"{shown:%H:%M}", _is_bot(view, message, author)), content, y, room
        )
    if entry.ephemeral:
        y = layout.paragraph(words("👁 Only visible to you", SMALL), content, y, room) + 2
    body = parse_html(message_body(message, view.names))
    y = max(layout.blocks(body, content, y, room, BODY), bottom) + 6
    if entry.ephemeral:
        canvas.rect((x + 1, top, x + width - 1, y), fill=SHADED, at=under)
    return y


def _meta(name: str, time: str, bot: bool) -> list[Piece]:
    pieces: list[Piece] = [*words(name, Style(size=14, bold=True))]
    if bot:
        badge = Style(size=9, bold=True, color=GREY)
        pieces += [Space(6, BODY), _badge_atom("APP", badge)]
    pieces += [Space(7, BODY), *words(time, Style(size=12, color=GREY))]
    return pieces


def _badge_atom(label: str, style: Style) -> Atom:
    width = style.font.getlength(label) + 6

    def draw(canvas: Canvas, x: float, baseline: float) -> None:
        canvas.rect((x, baseline - 11, x + width, baseline + 3), fill="#e1e1e1", radius=2)
        canvas.text(x + 3, baseline - 1, label, style)

    return Atom(width, 11, 3, draw, size=style.size)
