"""Inline pieces (text, drawn atoms, spaces and breaks) and how they are lined up and wrapped
into lines of a given width."""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace

from tests.demo.picture.canvas import (
    BODY,
    CODE_EDGE,
    CODE_FILL,
    MENTION_FILL,
    Canvas,
    Paint,
    Style,
    covered,
)
from tests.demo.picture.marks import _INVISIBLE, MARKS, UNKNOWN_MARK


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
