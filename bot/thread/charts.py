"""Charts in the thread: a range query's series drawn as a PNG and shared beside the reply.

Drawn off the event loop (matplotlib takes tens of milliseconds); a chart Slack refuses is
logged and left out, as the reply already holds the result in words.
"""

from __future__ import annotations

import asyncio
import logging
import re
from dataclasses import dataclass

from slack_sdk.errors import SlackApiError

from bot.slack.render.case.chart import alt_text, chart_png
from bot.thread.surface import ChatSurface
from domain.case import Case
from domain.tools.series import RANGE_TOOLS, range_series

logger = logging.getLogger(__name__)
_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]+")


@dataclass(frozen=True)
class Charted:
    """A tool's answer that may be a range query: which tool, its citation, its text."""

    tool: str
    citation: str
    text: str


async def share_charts(surface: ChatSurface, case: Case, answers: list[Charted]) -> int:
    """Each range query's series as a chart in the case's thread; how many were shared."""
    shared = 0
    for answer in answers:
        series = range_series(answer.text) if answer.tool in RANGE_TOOLS else None
        if not series or not any(s.points for s in series):
            continue
        title = answer.citation
        data = await asyncio.to_thread(chart_png, series, title=title)
        name = _UNSAFE.sub("-", title.split(" ")[0]).strip("-") + ".png"
        try:
            await surface.upload_image(
                channel=case.channel_id,
                thread_ts=case.thread_ts,
                filename=name,
                title=title,
                data=data,
                alt=alt_text(series, title=title),
            )
        except SlackApiError as error:
            logger.warning(
                "chart not shared",
                extra={"case_id": case.case_id, "error": error.response.get("error")},
            )
            continue
        shared += 1
    return shared
