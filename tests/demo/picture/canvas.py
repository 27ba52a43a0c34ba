"""The picture's colours, fonts and text styles, and the canvas that keeps drawing operations
to replay once the picture's height is known."""

from __future__ import annotations

import functools
import io
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import matplotlib
from matplotlib.ft2font import FT2Font
from PIL import Image, ImageDraw, ImageFont

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
