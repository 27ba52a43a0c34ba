"""The App Home (open cases, recent scores, calibration, knowledge size) and personal runbooks."""

from __future__ import annotations

import logging

from bot.inbox.work import HomeWork, KbAddWork
from bot.services.cases import CaseStore
from bot.services.outcomes import DEFAULT_LAST, OutcomeService
from bot.services.ports import ChatSurface, KnowledgeStats
from bot.services.scoring.service import ScoringService
from bot.slack.render.commands import CaseLink, notice
from bot.slack.render.text import code
from bot.slack.render.views import HomeModel, ScoreLine, home_view
from domain.budget import LLMSpend, day_of
from domain.knowledge import KnowledgeBaseKind, KnowledgePort, ToolStatus
from domain.ports import Clock, LLMCallRepository

logger = logging.getLogger(__name__)

HOME_CASES = 10
HOME_SCORES = 5


class HomeService:
    """Publishes a person's App Home."""

    def __init__(
        self,
        *,
        cases: CaseStore,
        scoring: ScoringService,
        outcomes: OutcomeService,
        stats: KnowledgeStats,
        surface: ChatSurface,
        spending: LLMCallRepository | None = None,
        clock: Clock | None = None,
    ) -> None:
        self._cases = cases
        self._scoring = scoring
        self._outcomes = outcomes
        self._stats = stats
        self._surface = surface
        self._spending = spending
        self._clock = clock

    async def publish(self, *, work: HomeWork) -> None:
        """Build and publish the home tab for one person."""
        found = await self._cases.repository.list_cases(
            work.team_id, user_id=work.user_id, limit=HOME_CASES
        )
        spent = await self._spending.for_cases([c.case_id for c in found]) if self._spending else {}
        cases = [
            CaseLink(
                c,
                await self._surface.permalink(channel=c.channel_id, ts=c.thread_ts),
                spent.get(c.case_id),
            )
            for c in found
        ]
        model = HomeModel(
            cases=cases,
            scores=await self._recent_scores(work.team_id),
            calibration=await self._outcomes.summary(work.team_id, last=DEFAULT_LAST),
            calibration_last=DEFAULT_LAST,
            knowledge_chunks=await self._stats.size(work.team_id),
            spend_today=await self._today(work.team_id),
        )
        await self._surface.publish_home(user=work.user_id, view=home_view(model))

    async def _today(self, team_id: str) -> LLMSpend | None:
        """What the model cost the workspace today (UTC)."""
        if self._spending is None or self._clock is None:
            return None
        since, until = day_of(self._clock.now())
        return await self._spending.for_team(team_id, since=since, until=until)

    async def _recent_scores(self, team_id: str) -> list[ScoreLine]:
        recent = await self._scoring.recent(team_id, limit=HOME_SCORES)
        return [ScoreLine(item.label, item.score.total_score, item.link) for item in recent]


class RunbookService:
    """Personal runbooks added through the `kb add` modal: only their owner's searches see them."""

    def __init__(self, *, knowledge: KnowledgePort, surface: ChatSurface) -> None:
        self._knowledge = knowledge
        self._surface = surface

    async def add(self, *, work: KbAddWork) -> None:
        """Save the runbook and tell its owner where the form was opened."""
        report = await self._knowledge.save_document(
            team_id=work.team_id,
            kb=KnowledgeBaseKind.PERSONAL,
            scope_id=work.user_id,
            title=work.title,
            markdown=work.body,
        )
        if report.status is ToolStatus.ERROR:
            text = f"I couldn't save your runbook {code(work.title)}: {report.error}"
        else:
            text = (
                f"📖 Saved your runbook {code(work.title)}. Only you see it, in `/fm kb search` "
                "and in the cases you work on."
            )
        logger.info("personal runbook saved", extra={"status": report.status.value})
        if work.channel_id:
            await self._surface.whisper(
                channel=work.channel_id, user=work.user_id, message=notice(text)
            )
