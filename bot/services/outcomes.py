"""Outcomes of finished cases: graded when a case is saved resolved or closed, summarised on ask.

Every status change is saved through the case store's one save loop, whichever way a person
confirmed it (a button, a typed "yes", `/fm close`); right after a save that leaves a case
finished, the loop settles it (`FinishedCases.settle`): its outcome is recorded unless it was
already, and the evidence uploaded into it is deleted from the knowledge store (its reports and
runbooks stay).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable

from domain.case import Case
from domain.knowledge import KnowledgePort
from domain.outcomes import CalibrationSummary, Outcome, grade, model_of, summarize
from domain.ports import Clock, FeedbackRepository, LLMCallRepository, OutcomeRepository

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
    """What follows a case saved finished (a status change just confirmed): it is graded once,
    and the evidence uploaded into it is deleted from the knowledge store (its reports and
    runbooks stay). The case store runs it right after such a save."""

    def __init__(self, outcomes: OutcomeService, knowledge: KnowledgePort | None = None) -> None:
        self._outcomes = outcomes
        self._knowledge = knowledge
        self.offers: Callable[[Case], Awaitable[None]] | None = None
        """Draws the workflows still offered in the case without buttons (set with alerts)."""

    async def settle(self, case: Case) -> None:
        """Grade the finished case once, then delete the evidence uploaded into it.

        The case is saved and people are waiting for the answer: neither step, should it fail,
        fails (and so repeats) the click or turn that finished the case.
        """
        await self._grade(case)
        await self._delete_evidence(case)
        await self._withdraw_offers(case)

    async def _withdraw_offers(self, case: Case) -> None:
        if self.offers is None:
            return
        try:
            await self.offers(case)
        except Exception:
            logger.exception(
                "could not redraw a finished case's workflows", extra={"case_id": case.case_id}
            )

    async def _grade(self, case: Case) -> None:
        try:
            await self._outcomes.grade_once(case)
        except Exception:
            logger.exception("could not grade a finished case", extra={"case_id": case.case_id})

    async def _delete_evidence(self, case: Case) -> None:
        if self._knowledge is None:
            return
        try:
            removed = await self._knowledge.delete_case_evidence(
                team_id=case.team_id, case_id=case.case_id
            )
        except Exception:
            logger.exception(
                "could not delete a finished case's evidence", extra={"case_id": case.case_id}
            )
            return
        if removed:
            logger.info(
                "finished case's evidence deleted",
                extra={"case_id": case.case_id, "chunks": removed},
            )
