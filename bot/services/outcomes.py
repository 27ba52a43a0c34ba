"""Outcomes of finished cases: graded when a case is saved resolved or closed, summarised on ask.

Every status change is saved through the case repository, whichever way a person confirmed it
(a button, a typed "yes", `/fm close`), so the repository the services use is wrapped: after a
save that leaves a case finished and not yet graded, its outcome is recorded, and the evidence
uploaded into it is deleted from the knowledge store (its reports and runbooks stay).
"""

from __future__ import annotations

import logging

from domain.case import Case
from domain.knowledge import KnowledgePort
from domain.lifecycle.confirmations import PendingConfirmation
from domain.outcomes import CalibrationSummary, Outcome, grade, model_of, summarize
from domain.ports import (
    CaseRepository,
    Clock,
    FeedbackRepository,
    LLMCallRepository,
    OutcomeRepository,
)

logger = logging.getLogger(__name__)

DEFAULT_LAST = 100


class OutcomeService:
    """Grades finished cases and summarises a workspace's recent outcomes."""

    def __init__(
        self,
        *,
        outcomes: OutcomeRepository,
        feedback: FeedbackRepository,
        llm_calls: LLMCallRepository,
        clock: Clock,
    ) -> None:
        self._outcomes = outcomes
        self._feedback = feedback
        self._llm_calls = llm_calls
        self._clock = clock

    async def model_behind(self, case: Case) -> str | None:
        """The model that stated the case's root cause, from the case's call records."""
        rc = case.root_cause_conclusion
        if rc is None:
            return None
        return model_of(await self._llm_calls.list_for_case(case.case_id), rc)

    async def grade(self, case: Case) -> Outcome:
        """Record (or record again) the outcome of a finished case."""
        feedback = await self._feedback.list_for_case(case.case_id)
        model = await self.model_behind(case)
        outcome = grade(case, feedback, model=model, now=self._clock.now())
        await self._outcomes.record(outcome)
        logger.info(
            "case outcome recorded",
            extra={"case_id": case.case_id, "verdict": outcome.verdict.value},
        )
        return outcome

    async def grade_once(self, case: Case) -> None:
        """Grade a finished case unless it was graded already (feedback re-grades it)."""
        if case.is_terminal and await self._outcomes.get(case.case_id) is None:
            await self.grade(case)

    async def summary(self, team_id: str, *, last: int = DEFAULT_LAST) -> CalibrationSummary:
        """Counts, hit rates, Brier and ECE over the workspace's last ``last`` outcomes."""
        return summarize(await self._outcomes.list_recent(team_id, limit=last))


class FinishedCases:
    """The case repository, acting on each case saved finished (a status change just
    confirmed): graded once, and the evidence uploaded into it forgotten."""

    def __init__(
        self,
        cases: CaseRepository,
        outcomes: OutcomeService,
        knowledge: KnowledgePort | None = None,
    ) -> None:
        self._cases = cases
        self._outcomes = outcomes
        self._knowledge = knowledge

    async def save(self, case: Case) -> Case:
        """Save; then, if the case is finished, grade it and forget its evidence.

        The case is saved and people are waiting for the answer: neither step, should it fail,
        fails (and so repeats) the click or turn that finished the case.
        """
        saved = await self._cases.save(case)
        if not saved.is_terminal:
            return saved
        try:
            await self._outcomes.grade_once(saved)
        except Exception:
            logger.exception("could not grade a finished case", extra={"case_id": case.case_id})
        if self._knowledge is not None:
            try:
                removed = await self._knowledge.delete_case_evidence(
                    team_id=saved.team_id, case_id=saved.case_id
                )
            except Exception:
                logger.exception(
                    "could not delete a finished case's evidence", extra={"case_id": case.case_id}
                )
            else:
                if removed:
                    logger.info(
                        "finished case's evidence deleted",
                        extra={"case_id": case.case_id, "chunks": removed},
                    )
        return saved

    async def add(self, case: Case) -> Case:
        """Store a new case."""
        return await self._cases.add(case)

    async def get(self, case_id: str) -> Case:
        """A case by id."""
        return await self._cases.get(case_id)

    async def get_by_thread(self, team_id: str, channel_id: str, thread_ts: str) -> Case | None:
        """The case of a thread."""
        return await self._cases.get_by_thread(team_id, channel_id, thread_ts)

    async def get_by_short_id(self, team_id: str, short_id: str) -> Case | None:
        """A case by the id people type."""
        return await self._cases.get_by_short_id(team_id, short_id)

    async def list_cases(
        self,
        team_id: str,
        *,
        open_only: bool = True,
        user_id: str | None = None,
        limit: int = 20,
    ) -> list[Case]:
        """Recent cases of a workspace."""
        return await self._cases.list_cases(
            team_id, open_only=open_only, user_id=user_id, limit=limit
        )

    async def find_confirmation(
        self, team_id: str, confirmation_id: str
    ) -> tuple[str, PendingConfirmation] | None:
        """Which case holds a confirmation."""
        return await self._cases.find_confirmation(team_id, confirmation_id)
