"""The thread pane: its head, the messages with their avatars, names and times, and the PNG."""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

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
from tests.demo.picture.canvas import (
    BODY,
    BORDER,
    GREY,
    LIGHT,
    PANE_WIDTH,
    RULE,
    SHADED,
    SMALL,
    WHITE,
    Canvas,
    Style,
)
from tests.demo.picture.layout import Layout
from tests.demo.picture.pieces import Atom, Piece, Space, words
from tests.demo.picture.tree import parse_html


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
