"""A range query's series as a small PNG people read at a glance, with its alt text.

Drawn with matplotlib (a runtime dependency; imported only when a chart is drawn, on the
file-only backend): at most `MAX_SERIES` lines, times in UTC, the citation as the title. The
alt text says the same in words, within Slack's 1,000 characters.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from datetime import UTC, datetime

from domain.tools.series import Series

MAX_SERIES = 8
ALT_TEXT_MAX = 1000
"""Slack refuses a longer image description (`alt_txt_too_large`)."""
SIZE_INCHES = (7.0, 2.8)
DPI = 100
LABEL_CHARS = 60
SECONDS_PER_DAY = 86_400
"""matplotlib counts dates in days since its epoch, 1970-01-01 UTC."""


def chart_png(series: Sequence[Series], *, title: str) -> bytes:
    """The series as lines on one chart, as PNG bytes."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.dates as mdates
    import matplotlib.pyplot as plt

    shown = [s for s in series if s.points][:MAX_SERIES]
    figure, axes = plt.subplots(figsize=SIZE_INCHES, dpi=DPI)
    try:
        for one in shown:
            times = [at / SECONDS_PER_DAY for at, _ in one.points]  # matplotlib's dates: days
            axes.plot(times, [value for _, value in one.points], label=_short(one.label))
        axes.set_title(title, fontsize=9)
        clock = mdates.DateFormatter("%H:%M", tz=UTC)  # type: ignore[no-untyped-call]
        axes.xaxis.set_major_formatter(clock)
        axes.tick_params(labelsize=8)
        axes.grid(alpha=0.3)
        if shown:
            axes.legend(fontsize=7, loc="upper left")
        figure.tight_layout()
        out = io.BytesIO()
        figure.savefig(out, format="png")
        return out.getvalue()
    finally:
        plt.close(figure)


def alt_text(series: Sequence[Series], *, title: str) -> str:
    """What the chart shows, in words: each series' last and highest value."""
    shown = [s for s in series if s.points][:MAX_SERIES]
    parts = [f"Line chart of {title}: {len(shown)} series"]
    if shown:
        first = min(s.points[0][0] for s in shown)
        last = max(s.points[-1][0] for s in shown)
        parts[0] += f" from {_clock(first)} to {_clock(last)} UTC"
    parts += [
        f"{_short(s.label)}: last {s.points[-1][1]:g}, highest {max(v for _, v in s.points):g}"
        for s in shown
    ]
    text = ". ".join(parts) + "."
    return text if len(text) <= ALT_TEXT_MAX else text[: ALT_TEXT_MAX - 1] + "…"


def _short(label: str) -> str:
    return label if len(label) <= LABEL_CHARS else label[: LABEL_CHARS - 1] + "…"


def _clock(at: float) -> str:
    return f"{datetime.fromtimestamp(at, UTC):%H:%M}"
