"""The scoring job: facts first, then the judge's two turns, each retried with backoff.

It runs behind ports (the LLM, the score repository, where the case comes from, and whoever shows
progress) and never lets exception text reach people: a failed scoring carries a reason written
for them. Every state is saved before it is shown, and a scoring finished by someone else meanwhile
(the start-up clean-up of orphans, another replica) is left as they left it.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Protocol, TypeVar

from domain.budget import LLMBudgetExceededError
from domain.case import Case
from domain.errors import DomainError
from domain.llm import (
    ChatMessage,
    LLMPort,
    LLMRateLimitedError,
    LLMRefusedError,
    LLMReplyInvalidError,
    LLMTimeoutError,
    LLMUnavailableError,
    ModelTier,
)
from domain.ports import AuditRepository, CaseRepository, Clock, MessageRepository, ScoreRepository
from domain.retry import RetryPolicy
from domain.scoring.extract import (
    ExtractedScore,
    ExtractionProblem,
    ScoreExtractionError,
    extract_score,
)
from domain.scoring.facts import compute_facts
from domain.scoring.judge import (
    MISSING_TOOLS_TEMPLATE,
    SCORE_TEMPLATE,
    JudgeCriteria,
    current_criteria,
)
from domain.scoring.lifecycle import (
    STOPPED_REASON,
    check_transition,
    complete,
    enter_phase,
    fail,
    start,
)
from domain.scoring.model import ScoringPhase, ScoringStatus, SessionScore
from domain.scoring.transcript import CaseMaterial

logger = logging.getLogger(__name__)

T = TypeVar("T")
Sleep = Callable[[float], Awaitable[None]]
NO_JUDGE = "No language model is configured for the judge (FM_LLM_MODEL or FM_LLM_JUDGE_MODEL)."
PHASE_WORDS = {
    ScoringPhase.EVALUATING: "evaluating the investigation",
    ScoringPhase.MISSING_TOOLS: "identifying the missing evidence and tools",
}
CAUSES: tuple[tuple[type[Exception], str], ...] = (
    (LLMTimeoutError, "the judge model did not answer in time"),
    (LLMRateLimitedError, "the model provider kept rate-limiting the judge"),
    (LLMUnavailableError, "the judge model could not be reached"),
    (LLMReplyInvalidError, "the judge model's reply could not be used"),
)
EXTRACTION_CAUSES = {
    ExtractionProblem.EMPTY: "the judge's reply was empty",
    ExtractionProblem.NO_NUMBER: "the judge's evaluation did not end with a total score",
    ExtractionProblem.OUT_OF_RANGE: "the judge gave a total outside 0–100",
}


class EmptyReplyError(DomainError):
    """The judge answered the follow-up with nothing."""


class JudgeFailedError(DomainError):
    """Every attempt at a judge turn failed; ``reason`` is written for people."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


RETRYABLE = (LLMUnavailableError, LLMReplyInvalidError, ScoreExtractionError, EmptyReplyError)


class ScoringObserver(Protocol):
    """Whoever shows a scoring's progress and result (a Slack message updated in place)."""

    async def show(self, score: SessionScore, case: Case) -> None:
        """Show the scoring as it is now, in place of what was shown before."""
        ...


class MaterialSource(Protocol):
    """Where a case and its records come from."""

    async def load(self, case_id: str) -> CaseMaterial:
        """The case, its conversation and its audit log (NotFoundError if the case is gone)."""
        ...


class RepositoryMaterial:
    """The case material from the repositories."""

    def __init__(
        self, *, cases: CaseRepository, messages: MessageRepository, audit: AuditRepository
    ) -> None:
        self._cases = cases
        self._messages = messages
        self._audit = audit

    async def load(self, case_id: str) -> CaseMaterial:
        """The case, its conversation and its audit log."""
        case = await self._cases.get(case_id)
        conversation = await self._messages.list_for_case(case_id)
        return CaseMaterial(case, conversation, await self._audit.list_for_case(case_id))


JUDGE_RETRY = RetryPolicy(attempts=3, first_delay_s=2.0)
"""Each judge turn: three tries, 2 s then 4 s apart (on top of the gateway's own quick retries)."""


class _FinishedElsewhere(Exception):
    """The stored scoring was finished by someone else; it stays as they left it."""

    def __init__(self, stored: SessionScore) -> None:
        super().__init__(stored.score_id)
        self.stored = stored


class ScoringJob:
    """Runs one scoring from pending to completed or failed."""

    def __init__(
        self,
        *,
        llm: LLMPort,
        scores: ScoreRepository,
        material: MaterialSource,
        observer: ScoringObserver,
        clock: Clock,
        sleep: Sleep = asyncio.sleep,
        retry: RetryPolicy | None = None,
        criteria: JudgeCriteria | None = None,
    ) -> None:
        self._llm = llm
        self._scores = scores
        self._material = material
        self._observer = observer
        self._clock = clock
        self._sleep = sleep
        self._retry = retry or JUDGE_RETRY
        self._criteria = criteria or current_criteria()

    async def run(self, score_id: str) -> SessionScore:
        """Judge the case of a pending scoring; a finished one is only shown again."""
        score = await self._scores.get(score_id)
        material = await self._material.load(score.case_id)
        if score.status in ScoringStatus.terminal_values():
            await self._observer.show(score, material.case)
            return score
        try:
            return await self._judge(score, material)
        except _FinishedElsewhere as finished:
            await self._observer.show(finished.stored, material.case)
            return finished.stored
        except asyncio.CancelledError:
            # Shut down mid-scoring: say so now rather than at the next start.
            await asyncio.shield(self._stopped(score_id, material.case))
            raise

    async def _judge(self, score: SessionScore, material: CaseMaterial) -> SessionScore:
        case = material.case
        if not self._llm.enabled:
            return await self._save(fail(score, reason=NO_JUDGE, now=self._clock.now()), case)
        facts = compute_facts(case)
        score = await self._save(start(score, facts=facts, now=self._clock.now()), case)
        first = self._criteria.score_turn(material, facts)
        try:
            evaluation, reply = await self._turn(ScoringPhase.EVALUATING, self._evaluate, first)
            score = await self._save(enter_phase(score, ScoringPhase.MISSING_TOOLS), case)
            second = self._criteria.missing_tools_turn(first, reply)
            missing = await self._turn(ScoringPhase.MISSING_TOOLS, self._missing_tools, second)
        except JudgeFailedError as failed:
            return await self._save(fail(score, reason=failed.reason, now=self._clock.now()), case)
        done = complete(score, evaluation=evaluation, missing_tools=missing, now=self._clock.now())
        return await self._save(done, case)

    async def _evaluate(self, messages: tuple[ChatMessage, ...]) -> tuple[ExtractedScore, str]:
        reply = await self._ask(messages, SCORE_TEMPLATE)
        return extract_score(reply), reply

    async def _missing_tools(self, messages: tuple[ChatMessage, ...]) -> str:
        reply = (await self._ask(messages, MISSING_TOOLS_TEMPLATE)).strip()
        if not reply:
            raise EmptyReplyError("the judge gave no missing-tools analysis")
        return reply

    async def _ask(self, messages: tuple[ChatMessage, ...], template: str) -> str:
        return await self._llm.text(
            tier=ModelTier.JUDGE,
            messages=messages,
            template=template,
            template_hash=self._criteria.hash,
        )

    async def _turn(
        self,
        phase: ScoringPhase,
        call: Callable[[tuple[ChatMessage, ...]], Awaitable[T]],
        messages: tuple[ChatMessage, ...],
    ) -> T:
        """One judge turn, attempted up to the policy's limit with doubling waits."""
        attempts = self._retry.attempts
        for attempt in range(1, attempts + 1):
            try:
                return await call(messages)
            except LLMRefusedError as refused:
                # The same request would be refused again: say why now, no waits.
                raise JudgeFailedError(refusal_reason(refused, phase)) from refused
            except LLMBudgetExceededError as stopped:
                # The budget holds until tomorrow (or for good, for a case's cap): no waits.
                raise JudgeFailedError(stopped.breach.sentence()) from stopped
            except RETRYABLE as error:
                logger.warning(
                    "judge turn failed",
                    extra={"phase": phase.value, "attempt": attempt, "error": type(error).__name__},
                )
                if not self._retry.allows_another(attempt):
                    raise JudgeFailedError(failure_reason(error, phase, attempts)) from error
                await self._sleep(self._retry.delay(attempt))
        raise AssertionError("unreachable: the loop returns or raises")

    async def _save(self, score: SessionScore, case: Case) -> SessionScore:
        """Store the new state unless the scoring was finished elsewhere; then show it."""
        stored = await self._scores.get(score.score_id)
        if stored.status in ScoringStatus.terminal_values():
            raise _FinishedElsewhere(stored)
        check_transition(stored.status, score.status)
        await self._scores.update(score)
        await self._observer.show(score, case)
        return score

    async def _stopped(self, score_id: str, case: Case) -> None:
        stored = await self._scores.get(score_id)
        if stored.status in ScoringStatus.terminal_values():
            return
        failed = fail(stored, reason=STOPPED_REASON, now=self._clock.now())
        await self._scores.update(failed)
        await self._observer.show(failed, case)


def failure_reason(error: Exception, phase: ScoringPhase, attempts: int) -> str:
    """Why the judge turn failed, for people: the kind of failure, never its text."""
    if isinstance(error, ScoreExtractionError):
        cause = EXTRACTION_CAUSES[error.problem]
    elif isinstance(error, EmptyReplyError):
        cause = "the judge gave no missing evidence and tools analysis"
    else:
        cause = next((text for kind, text in CAUSES if isinstance(error, kind)), "the judge failed")
    return f"{cause[0].upper()}{cause[1:]} ({attempts} attempts, while {PHASE_WORDS[phase]})."


def refusal_reason(error: LLMRefusedError, phase: ScoringPhase) -> str:
    """Why the provider refused the judge, and what to do, in one sentence."""
    happened, todo = error.explain(setting="FM_LLM_JUDGE_MODEL")
    return f"{happened[0].upper()}{happened[1:]} while {PHASE_WORDS[phase]}; {todo}."
