"""Showing a scoring in its case thread: one message, rewritten at every step (the observer).

Showing is best effort: the scoring's state is already saved when it is shown, so a Slack hiccup
is logged and the next step (or `/fm score`) shows it again. A long result's file is shared once
per scoring; the posted-messages table remembers that it was.
"""

from __future__ import annotations

import logging

from aiohttp import ClientError
from slack_sdk.errors import SlackClientError

from bot.services.ports import ChatSurface
from bot.slack.render.limits import RenderError
from bot.slack.render.scoring.message import RenderedScoring, ScoreFile, scoring_message
from domain.case import Case
from domain.ports import Clock, PostedMessageRepository
from domain.records import PostedKind, PostedMessage
from domain.scoring.judge import is_current
from domain.scoring.model import SessionScore

logger = logging.getLogger(__name__)

SURFACE_ERRORS = (SlackClientError, ClientError, TimeoutError, RenderError)
"""What showing something in Slack can fail with (the state is saved regardless)."""


def case_label(case: Case) -> str:
    """The id people type."""
    return case.short_id or case.case_id


def render(score: SessionScore, case: Case) -> RenderedScoring:
    """The thread message for the scoring as it is now."""
    return scoring_message(
        score, case_label=case_label(case), current=is_current(score.prompt_hash)
    )


class ScoringThreadView:
    """ScoringObserver for the chat surface: edits the scoring's message in place."""

    def __init__(
        self, *, surface: ChatSurface, posted: PostedMessageRepository, clock: Clock
    ) -> None:
        self._surface = surface
        self._posted = posted
        self._clock = clock

    async def show(self, score: SessionScore, case: Case) -> None:
        """Rewrite the scoring's message (posting one if it has none); share a long result."""
        rendered = render(score, case)
        try:
            if score.message_channel and score.message_ts:
                await self._surface.update(
                    channel=score.message_channel, ts=score.message_ts, message=rendered.message
                )
            else:
                await self._surface.post(
                    channel=case.channel_id, thread_ts=case.thread_ts, message=rendered.message
                )
            if rendered.attachment is not None:
                await self._share_once(score, case, rendered.attachment)
        except SURFACE_ERRORS:
            logger.warning(
                "could not show a scoring",
                exc_info=True,
                extra={"score_id": score.score_id, "status": score.status.value},
            )

    async def _share_once(self, score: SessionScore, case: Case, file: ScoreFile) -> None:
        if await self._posted.find(case.case_id, PostedKind.SCORE_FILE, score.score_id):
            return
        await self._surface.upload(
            channel=case.channel_id,
            thread_ts=case.thread_ts,
            filename=file.filename,
            title=file.title,
            content=file.content,
        )
        shared = PostedMessage(
            case_id=case.case_id,
            kind=PostedKind.SCORE_FILE,
            key=score.score_id,
            channel_id=case.channel_id,
            posted_at=self._clock.now(),
        )
        await self._posted.remember(shared)
