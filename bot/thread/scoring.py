"""A scoring as its case thread shows it, and what people are told privately about scoring.

The thread has one message per scoring, rewritten at every step (`ScoringThreadView`, the judge's
observer). Showing is best effort: the scoring's state is already saved when it is shown, so a
Slack hiccup is logged and the next step (or `/fm score`) shows it again. A long result's file is
shared once per scoring; the posted-messages table remembers that it was.

The scoring service says what a request came to (`ScoringAnswer`) and which scorings are recent
(`Scored`); drawing them, with links to the scorings' messages, happens here.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from aiohttp import ClientError
from slack_sdk.errors import SlackClientError

from bot.slack.render.commands import notice
from bot.slack.render.limits import RenderError
from bot.slack.render.message import SlackMessage
from bot.slack.render.scoring.answers import (
    NO_JUDGE,
    NOT_A_CASE,
    ScoreLink,
    not_finished,
    request_answer,
    scores_list,
)
from bot.slack.render.scoring.message import RenderedScoring, ScoreFile, scoring_message
from bot.thread.surface import ChatSurface
from domain.case import Case
from domain.ports import Clock, PostedMessageRepository
from domain.records import PostedKind, PostedMessage
from domain.scoring.judge import is_current
from domain.scoring.model import SessionScore
from domain.scoring.requests import RequestOutcome

logger = logging.getLogger(__name__)

SURFACE_ERRORS = (SlackClientError, ClientError, TimeoutError, RenderError)
"""What showing something in Slack can fail with (the state is saved regardless)."""
NOT_POSTED = "I couldn't post the scoring into the case thread, so the judge was not asked."


class Refusal(StrEnum):
    """Why a request for a scoring started nothing."""

    NOT_A_CASE = "not_a_case"
    """The thread it was asked in is not a case."""
    NO_JUDGE = "no_judge"
    """No language model is configured for the judge."""
    NOT_POSTED = "not_posted"
    """The scoring's message could not be posted in the case thread."""


REFUSALS = {
    Refusal.NOT_A_CASE: NOT_A_CASE,
    Refusal.NO_JUDGE: NO_JUDGE,
    Refusal.NOT_POSTED: NOT_POSTED,
}


@dataclass(frozen=True)
class Refused:
    """Nothing was scored, for a reason that is the same whatever the case."""

    why: Refusal


@dataclass(frozen=True)
class Unfinished:
    """The case is still open: only finished cases are scored."""

    case: Case


@dataclass(frozen=True)
class Requested:
    """A request met the case's scoring: started now, already running, or already done."""

    outcome: RequestOutcome
    score: SessionScore
    case: Case


ScoringAnswer = Refused | Unfinished | Requested
"""What a request for a scoring came to, told privately to whoever asked."""


@dataclass(frozen=True)
class Scored:
    """A scoring and the case it graded."""

    score: SessionScore
    case: Case


def render(score: SessionScore, case: Case) -> RenderedScoring:
    """The thread message for the scoring as it is now."""
    return scoring_message(score, case_label=case.label, current=is_current(score.prompt_hash))


async def linked(surface: ChatSurface, scored: Scored) -> ScoreLink:
    """A scoring with the link to its message (to the case thread, before it has one)."""
    score, case = scored.score, scored.case
    channel = score.message_channel or case.channel_id
    link = await surface.permalink(channel=channel, ts=score.message_ts or case.thread_ts)
    return ScoreLink(score, case, link, is_current(score.prompt_hash))


async def answer_message(surface: ChatSurface, answer: ScoringAnswer) -> SlackMessage:
    """The private answer to `/fm score`, the Score button or the shortcut."""
    match answer:
        case Refused(why=why):
            return notice(REFUSALS[why])
        case Unfinished(case=case):
            return not_finished(case)
        case Requested(outcome=outcome, score=score, case=case):
            return request_answer(outcome, await linked(surface, Scored(score, case)))


async def scores_message(
    surface: ChatSurface, items: Sequence[Scored], *, below: int | None
) -> SlackMessage:
    """Recent completed scores with links to their messages (`/fm scores [--below N]`)."""
    return scores_list([await linked(surface, item) for item in items], below=below)


class ScoringThreadView:
    """ScoringObserver for the chat surface: edits the scoring's message in place; and tells
    people privately what their requests came to."""

    def __init__(
        self, *, surface: ChatSurface, posted: PostedMessageRepository, clock: Clock
    ) -> None:
        self._surface = surface
        self._posted = posted
        self._clock = clock

    async def post(self, score: SessionScore, case: Case) -> str | None:
        """A new scoring's message in the case thread; its ts, or None when Slack refused it
        (logged)."""
        try:
            return await self._surface.post(
                channel=case.channel_id,
                thread_ts=case.thread_ts,
                message=render(score, case).message,
            )
        except SURFACE_ERRORS:
            logger.warning("could not post a scoring", exc_info=True, extra={"case": case.case_id})
            return None

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

    async def tell(
        self,
        answer: ScoringAnswer,
        *,
        channel: str,
        user: str,
        thread_ts: str | None = None,
        response_url: str | None = None,
    ) -> None:
        """Tell ``user`` alone what their request came to (where they asked)."""
        await self._surface.whisper(
            channel=channel,
            user=user,
            thread_ts=thread_ts,
            message=await answer_message(self._surface, answer),
            response_url=response_url,
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
