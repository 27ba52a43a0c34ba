"""The living case summary: the thread's first message, edited in place when what it shows changes.

It may share its message with the case's first answer (a person's case: the answer comes under it)
or with an alert's analysis and the workflows it offers (an alert's case: the alert is the thread's
parent, the summary and its analysis the one message under it). Either is kept with the summary
(`Summary`) and drawn again with it, as the case has it now.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence

from bot.slack.render.limits import MESSAGE_MAX_BLOCKS, fits
from bot.slack.render.message import SlackMessage
from bot.thread.analysis import analysis_message
from bot.thread.compose import digest, top
from bot.thread.memory import Analysed, Offer, Summary
from bot.thread.voice import ThreadVoice
from domain.budget import LLMSpend
from domain.case import Case
from domain.records import PostedKind

logger = logging.getLogger(__name__)

SUMMARY_GROWTH = 2_500
"""Characters of blocks left free when the first answer or an alert's analysis joins the summary:
the summary grows as the case goes on (a cause, a mitigation, an outcome; each line is capped)."""

SUMMARY_GROWTH_BLOCKS = 4
"""Blocks left free likewise (the summary's notes on questions waiting, being stuck, the cost)."""


def roomy(rendered: SlackMessage) -> bool:
    """Whether a summary sharing its message with ``rendered`` leaves it room to grow."""
    return (
        fits(rendered, room=SUMMARY_GROWTH)
        and len(rendered.blocks) <= MESSAGE_MAX_BLOCKS - SUMMARY_GROWTH_BLOCKS
    )


class SummaryVoice(ThreadVoice):
    """Posts and edits the case summary, and what shares its message."""

    async def show_header(
        self,
        case: Case,
        notes: Mapping[str, str] | None = None,
        *,
        offers: Sequence[Offer] | None = None,
    ) -> None:
        """Post the living case summary, or edit it in place when what it shows changed.

        Where the case's first answer shares its message, the answer is drawn again with it
        (``notes``: how its questions were just decided, by confirmation id); where an alert's
        analysis does, the analysis with its workflows (``offers``: as they stand now, else as
        they were last drawn).
        """
        kept_top = await self._refs.find(case, PostedKind.HEADER)
        body = await self._refs.kept(case, PostedKind.HEADER)
        summary = body if isinstance(body, Summary) else Summary(digest="")
        opening = summary.opening
        if opening is not None and notes:
            opening = opening.decided(dict(notes))
        analysis = summary.analysis
        offered = list(offers) if offers is not None else summary.offers
        spend = await self._spend(case)
        below = analysis_message(case, analysis, offered) if analysis is not None else None
        rendered = top(case, opening, spend, below)
        if (opening is not None or analysis is not None) and not fits(rendered):
            # Grown past Slack's limit despite the room left for it: first without what the
            # answer or the analysis opened with (files' findings, a past case), else the
            # summary alone.
            logger.warning("what shares the summary's message no longer fits with it")
            if analysis is not None:
                analysis = analysis.model_copy(update={"lead": []})
                below = analysis_message(case, analysis, offered)
            if opening is not None:
                opening = opening.model_copy(update={"lead": []})
            rendered = top(case, opening, spend, below)
            if not fits(rendered) and opening is not None:
                opening, rendered = None, top(case, None, spend)
        shows = digest(rendered)
        if kept_top is None or kept_top.ts is None:
            ts = await self.post(case, rendered)
        elif summary.digest == shows:
            return
        else:
            ts = kept_top.ts
            await self.surface.update(channel=case.channel_id, ts=ts, message=rendered)
        await self._refs.set_header(
            case, ts, digest=shows, opening=opening, analysis=analysis, offers=offered
        )

    async def join_header(self, case: Case, analysis: Analysed, offers: Sequence[Offer]) -> str:
        """An alert's analysis drawn under the case summary, in its message (edited): where, or
        "" (nothing done) when the summary is not posted yet, already shares its message with
        an answer, or would have too little room left with it."""
        kept_top = await self._refs.find(case, PostedKind.HEADER)
        body = await self._refs.kept(case, PostedKind.HEADER)
        if kept_top is None or kept_top.ts is None or not isinstance(body, Summary):
            return ""
        if body.opening is not None:
            return ""
        drawn = top(case, None, await self._spend(case), analysis_message(case, analysis, offers))
        if not roomy(drawn):
            return ""
        joined = body.model_copy(update={"analysis": analysis, "offers": list(offers)})
        await self._refs.remember(case, PostedKind.HEADER, kept_top.ts, body=joined)
        await self.show_header(case)
        return kept_top.ts

    async def _spend(self, case: Case) -> LLMSpend | None:
        """What the model cost the case so far, for the summary's footer."""
        if self._spending is None:
            return None
        return await self._spending.for_case(case.case_id)
