"""What people are told privately: answers to `/fm` commands and short notes, drawn and sent.

The command service works out an answer as data (`CommandAnswer`: help, a list of cases, a case's
status, recent scores, calibration, knowledge-base hits, a sentence); `Replies` draws it, with
links to the threads it names, and says it to the person who typed the command. The other small
private answers (thanks for a rating, a runbook saved, why a click changed nothing) go the same
way, and so does the one public edit of this kind: a failure message marked as being retried.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from bot.slack.render.case.feedback import thanks
from bot.slack.render.commands import (
    CaseLink,
    case_list,
    case_status,
    channel_cases,
    help_message,
    kb_results,
    notice,
)
from bot.slack.render.errors import retrying_message
from bot.slack.render.message import SlackMessage
from bot.slack.render.scoring.calibration import calibration_message
from bot.slack.render.text import code
from bot.thread.scoring import (
    Refused,
    Requested,
    Scored,
    ScoringAnswer,
    Unfinished,
    answer_message,
    scores_message,
)
from bot.thread.surface import ChatSurface
from domain.budget import LLMSpend
from domain.case import Case
from domain.knowledge import IngestReport, KnowledgeResult, ToolStatus
from domain.outcomes import CalibrationSummary


@dataclass(frozen=True)
class Costed:
    """A case and what the model cost it so far (None: not shown)."""

    case: Case
    spend: LLMSpend | None = None


@dataclass(frozen=True)
class Help:
    """Usage, after what was wrong with the command (if anything was)."""

    problem: str | None = None


@dataclass(frozen=True)
class Note:
    """A one-paragraph answer."""

    text: str


@dataclass(frozen=True)
class CaseList:
    """Open cases, each with a link to its thread."""

    cases: Sequence[Costed]
    here: bool = False
    """Only the channel's the command was typed in, each with a button for its status."""
    more: bool = False
    """The channel has more open cases than are listed."""


@dataclass(frozen=True)
class CaseStatus:
    """Where one case stands, with a link to its thread."""

    case: Costed


@dataclass(frozen=True)
class CloseAsked:
    """Closing ``case`` was asked in its thread, at ``ts``."""

    case: Case
    ts: str


@dataclass(frozen=True)
class ScoreList:
    """Recent completed scores (only those below ``below``, when given)."""

    scores: Sequence[Scored]
    below: int | None


@dataclass(frozen=True)
class Calibration:
    """How often stated root causes were right, over the last ``last`` finished cases."""

    summary: CalibrationSummary
    last: int


@dataclass(frozen=True)
class KbHits:
    """What the knowledge base and the person's runbooks hold for ``query``."""

    query: str
    results: Sequence[KnowledgeResult]


CommandAnswer = (
    Help | Note | CaseList | CaseStatus | CloseAsked | ScoreList | Calibration | KbHits
) | ScoringAnswer
"""What a `/fm` command answers."""


class Replies:
    """Draws private answers and says them to the person they are for."""

    def __init__(self, surface: ChatSurface) -> None:
        self._surface = surface

    async def answer(
        self,
        answer: CommandAnswer,
        *,
        channel: str,
        user: str,
        response_url: str | None = None,
        thread_ts: str | None = None,
    ) -> None:
        """Answer a command, to ``user`` alone (through ``response_url`` when given; in the
        thread ``thread_ts`` it was asked from, if any)."""
        await self._surface.whisper(
            channel=channel,
            user=user,
            message=await self._drawn(answer),
            response_url=response_url,
            thread_ts=thread_ts,
        )

    async def note(
        self, text: str, *, channel: str, user: str, thread_ts: str | None = None
    ) -> None:
        """Say ``text`` to ``user`` alone, where they clicked."""
        await self._surface.whisper(
            channel=channel, user=user, thread_ts=thread_ts, message=notice(text)
        )

    async def thank(self, *, channel: str, user: str, thread_ts: str | None) -> None:
        """Thank ``user`` for a rating, privately."""
        await self._surface.whisper(
            channel=channel, user=user, thread_ts=thread_ts, message=thanks()
        )

    async def runbook_saved(
        self, *, channel: str, user: str, title: str, report: IngestReport
    ) -> None:
        """Tell the owner of a personal runbook whether it was saved (``report``: how it went)."""
        if report.status is ToolStatus.ERROR:
            text = f"I couldn't save your runbook {code(title)}: {report.error}"
        else:
            text = (
                f"📖 Saved your runbook {code(title)}. Only you see it, in `/fm kb search` "
                "and in the cases you work on."
            )
        await self._surface.whisper(channel=channel, user=user, message=notice(text))

    async def retrying(self, *, channel: str, ts: str, by: str, reference: str) -> None:
        """The failure message at ``ts`` once ``by`` clicked Retry: who asked, no button."""
        shown = retrying_message(by=by, reference=reference)
        await self._surface.update(channel=channel, ts=ts, message=shown)

    async def _drawn(self, answer: CommandAnswer) -> SlackMessage:
        match answer:
            case Help(problem=problem):
                return help_message(problem)
            case Note(text=text):
                return notice(text)
            case CaseList(cases=cases, here=here, more=more):
                linked = [await self._linked(item) for item in cases]
                return channel_cases(linked, more=more) if here else case_list(linked)
            case CaseStatus(case=item):
                return case_status(await self._linked(item))
            case CloseAsked(case=case, ts=ts):
                link = await self._surface.permalink(channel=case.channel_id, ts=ts)
                where = f"<{link}|in its thread>" if link else "in its thread"
                return notice(f"I asked {where} to confirm closing `{case.label}`.")
            case ScoreList(scores=scores, below=below):
                return await scores_message(self._surface, scores, below=below)
            case Calibration(summary=summary, last=last):
                return calibration_message(summary, last=last)
            case KbHits(query=query, results=results):
                return kb_results(query, results)
            case Refused() | Unfinished() | Requested():
                return await answer_message(self._surface, answer)

    async def _linked(self, item: Costed) -> CaseLink:
        case = item.case
        link = await self._surface.permalink(channel=case.channel_id, ts=case.thread_ts)
        return CaseLink(case, link, item.spend)
