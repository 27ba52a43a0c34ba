"""The App Home (open cases, recent scores, calibration, knowledge size) and personal runbooks."""

from __future__ import annotations

import logging

from bot.inbox.work import HomeWork, KbAddWork
from bot.services.cases import CaseStore
from bot.services.outcomes import DEFAULT_LAST, OutcomeService
from bot.services.ports import KnowledgeStats
from bot.services.scoring.service import ScoringService
from bot.thread.home import HomePage, HomeTab
from bot.thread.replies import Costed, Replies
from domain.budget import LLMSpend, day_of
from domain.knowledge import KnowledgeBaseKind, KnowledgePort
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
        tab: HomeTab,
        spending: LLMCallRepository | None = None,
        clock: Clock | None = None,
    ) -> None:
        self._cases = cases
        self._scoring = scoring
        self._outcomes = outcomes
        self._stats = stats
        self._tab = tab
        self._spending = spending
        self._clock = clock

    async def publish(self, *, work: HomeWork) -> None:
        """Build and publish the home tab for one person."""
        found = await self._cases.repository.list_cases(
            work.team_id, user_id=work.user_id, limit=HOME_CASES
        )
        spent = await self._spending.for_cases([c.case_id for c in found]) if self._spending else {}
        page = HomePage(
            cases=[Costed(c, spent.get(c.case_id)) for c in found],
            scores=await self._scoring.recent(work.team_id, limit=HOME_SCORES),
            calibration=await self._outcomes.summary(work.team_id, last=DEFAULT_LAST),
            calibration_last=DEFAULT_LAST,
            knowledge_chunks=await self._stats.size(work.team_id),
            spend_today=await self._today(work.team_id),
        )
        await self._tab.publish(work.user_id, page)

    async def _today(self, team_id: str) -> LLMSpend | None:
        """What the model cost the workspace today (UTC)."""
        if self._spending is None or self._clock is None:
            return None
        since, until = day_of(self._clock.now())
        return await self._spending.for_team(team_id, since=since, until=until)


class RunbookService:
    """Personal runbooks added through the `kb add` modal: only their owner's searches see them."""

    def __init__(self, *, knowledge: KnowledgePort, replies: Replies) -> None:
        self._knowledge = knowledge
        self._replies = replies

    async def add(self, *, work: KbAddWork) -> None:
        """Save the runbook and tell its owner where the form was opened."""
        report = await self._knowledge.save_document(
            team_id=work.team_id,
            kb=KnowledgeBaseKind.PERSONAL,
            scope_id=work.user_id,
            title=work.title,
            markdown=work.body,
        )
        logger.info("personal runbook saved", extra={"status": report.status.value})
        if work.channel_id:
            await self._replies.runbook_saved(
                channel=work.channel_id, user=work.user_id, title=work.title, report=report
            )
