"""👍 / 👎 under a stated root cause: kept per person and conclusion, answered privately."""

from __future__ import annotations

from bot.inbox.work import ClickWork
from bot.services.cases import CaseStore
from bot.services.outcomes import OutcomeService
from bot.slack.ids import FeedbackValue, load_value
from bot.thread.replies import Replies
from domain.outcomes import ConclusionFeedback, id_of
from domain.ports import Clock, FeedbackRepository


class FeedbackService:
    """Records a rating of a root cause; a finished case is graded again with it."""

    def __init__(
        self,
        *,
        cases: CaseStore,
        feedback: FeedbackRepository,
        outcomes: OutcomeService,
        replies: Replies,
        clock: Clock,
    ) -> None:
        self._cases = cases
        self._feedback = feedback
        self._outcomes = outcomes
        self._replies = replies
        self._clock = clock

    async def rate(self, *, work: ClickWork) -> None:
        """Keep the person's rating (replacing their earlier one) and thank them privately."""
        value = load_value(FeedbackValue, work.value)
        case = await self._cases.clicked(value.case_id, work.team_id)
        rc = case.root_cause_conclusion
        current = rc is not None and id_of(rc) == value.conclusion_id
        await self._feedback.record(
            ConclusionFeedback(
                team_id=case.team_id,
                case_id=case.case_id,
                conclusion_id=value.conclusion_id,
                user_id=work.user_id,
                rating=value.rating,
                confidence=value.confidence,
                model=await self._outcomes.model_behind(case) if current else None,
                at=self._clock.now(),
            )
        )
        if case.is_terminal:
            await self._outcomes.grade(case)
        await self._replies.thank(
            channel=work.channel_id, user=work.user_id, thread_ts=work.thread_ts
        )
