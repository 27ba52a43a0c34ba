"""The thread as a PNG drawn with Pillow, for machines without Chromium.

It draws what the page shows, from the same pieces: the entries, names, grouping and times of
page.py, and each message's body exactly as page.py renders it from the Block Kit payloads
(blocks.py, mrkdwn.py, rich_text.py, files.py), read back as a small element tree and laid out
the way thread.css lays it out (closely, not pixel for pixel). The fonts are the DejaVu faces
matplotlib ships, so nothing depends on the system's fonts. They have no emoji, so each emoji is
drawn as a small coloured mark: a badge with a symbol, a dot, or a coloured symbol.

canvas.py holds the colours, fonts, styles and the canvas; marks.py the emoji marks; pieces.py
the inline pieces and their wrapping into lines; tree.py the element tree; layout.py the blocks
and inline elements; thread.py the pane and its messages.
"""

from tests.demo.picture.canvas import Canvas, Style, Written, covered
from tests.demo.picture.marks import MARKS, Mark
from tests.demo.picture.thread import Picture, draw_thread, lay_out_thread, write_picture

__all__ = [
    "MARKS",
    "Canvas",
    "Mark",
    "Picture",
    "Style",
    "Written",
    "covered",
    "draw_thread",
    "lay_out_thread",
    "write_picture",
]
