"""Scoring finished cases: requests from `/fm score`, the Score button and the shortcut.

A request is answered at once, privately; a new scoring gets its message in the case thread and
its judge work recorded in the durable inbox, which the worker runs (`run`). Scorings a crash left
pending or running are failed at start-up (`fail_orphans`).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from bot.inbox.work import ScoreRequestWork, ScoreRunWork, WorkKind, payload_as
from bot.services.cases import CaseStore
from bot.services.intake import Intake
from bot.thread.scoring import (
    NOT_POSTED,
    Refusal,
    Refused,
    Requested,
    Scored,
    ScoringAnswer,
    ScoringThreadView,
    Unfinished,
)
from domain.case import Case
from domain.errors import NotFoundError
from domain.ports import AuditRepository, Clock, ScoreRepository
from domain.queue import InboxItem
from domain.records import AuditEntry
from domain.scoring.job import ScoringJob
from domain.scoring.judge import current_criteria
from domain.scoring.lifecycle import ORPHANED_REASON, fail, to_us
from domain.scoring.model import ScoringStatus, SessionScore
from domain.scoring.requests import RequestOutcome, request_scoring

logger = logging.getLogger(__name__)

RECENT_LIMIT = 15


class ScoringService:
    """Starts scorings, runs them, lists them, and cleans up after crashes."""

    def __init__(
        self,
        *,
        cases: CaseStore,
        scores: ScoreRepository,
        job: ScoringJob,
        view: ScoringThreadView,
        intake: Intake,
        audit: AuditRepository,
        clock: Clock,
        judge_enabled: bool,
    ) -> None:
        self._cases = cases
        self._scores = scores
        self._job = job
        self._view = view
        self._intake = intake
        self._audit = audit
        self._clock = clock
        self._judge_enabled = judge_enabled

    async def request(self, *, case: Case, by: str, force: bool, source: str) -> ScoringAnswer:
        """Apply the status table for a request; return what to tell the person privately."""
        if not case.is_terminal:
            return Unfinished(case)
        if not self._judge_enabled:
            return Refused(Refusal.NO_JUDGE)
        result = await request_scoring(
            self._scores,
            case=case,
            by=by,
            force=force,
            now=self._clock.now(),
            criteria_hash=current_criteria().hash,
        )
        score = result.score
        if result.outcome is RequestOutcome.STARTED:
            score = await self._start(case, score, source=source, force=force)
            if score.status is ScoringStatus.FAILED:
                return Refused(Refusal.NOT_POSTED)
        return Requested(result.outcome, score, case)

    async def answer(
        self,
        *,
        case: Case,
        by: str,
        source: str,
        channel: str,
        thread_ts: str | None = None,
        force: bool = False,
    ) -> None:
        """Request a scoring for ``by`` and tell them alone what came of it, where they asked."""
        answer = await self.request(case=case, by=by, force=force, source=source)
        await self._view.tell(answer, channel=channel, user=by, thread_ts=thread_ts)

    async def request_in_thread(self, *, work: ScoreRequestWork) -> None:
        """The shortcut: score the case of the thread it was used in."""
        case = await self._cases.by_thread(work.thread)
        answer: ScoringAnswer
        if case is None or case.team_id != work.team_id:
            answer = Refused(Refusal.NOT_A_CASE)
        else:
            answer = await self.request(
                case=case, by=work.user_id, force=False, source="slack:shortcut"
            )
        await self._view.tell(
            answer,
            channel=work.channel_id,
            user=work.user_id,
            thread_ts=work.thread_ts,
            response_url=work.response_url,
        )

    async def run(self, *, work: ScoreRunWork) -> None:
        """Run the judge for a scoring (the worker calls this)."""
        await self._job.run(work.score_id)

    async def abandon(self, *, work: ScoreRunWork, reference: str) -> None:
        """The judge's work failed unexpectedly: fail the scoring and say so in its message."""
        score = await self._scores.get(work.score_id)
        if score.status in ScoringStatus.terminal_values():
            return
        reason = f"Something went wrong on my side (reference `{reference}`)."
        failed = fail(score, reason=reason, now=self._clock.now())
        await self._scores.update(failed)
        await self._view.show(failed, await self._cases.get(score.case_id))

    async def fail_orphans(self, *, elsewhere: Sequence[InboxItem] = ()) -> int:
        """Fail the scorings a crash left pending or running (at start-up, before the worker).

        ``elsewhere``: the work other live instances (replicas) hold; scorings they are judging
        right now are not orphans.
        """
        judging = [
            payload_as(item, ScoreRunWork).score_id
            for item in elsewhere
            if item.kind == WorkKind.SCORE_RUN
        ]
        failed = await self._scores.fail_orphans(
            reason=ORPHANED_REASON, now_us=to_us(self._clock.now()), spare=judging
        )
        if failed:
            logger.info("failed scorings left running by a restart", extra={"scorings": failed})
        return failed

    async def recent(
        self, team_id: str, *, below: int | None = None, limit: int = RECENT_LIMIT
    ) -> list[Scored]:
        """Recent completed scores of the workspace, newest first, with the cases they graded."""
        found = await self._scores.list_recent(team_id, below=below, limit=limit)
        items = []
        for score in found:
            try:
                case = await self._cases.get(score.case_id)
            except NotFoundError:
                continue
            items.append(Scored(score, case))
        return items

    async def _start(
        self, case: Case, score: SessionScore, *, source: str, force: bool
    ) -> SessionScore:
        """Post the scoring's message in the thread, then record the judge's work."""
        ts = await self._view.post(score, case)
        if ts is None:
            failed = fail(score, reason=NOT_POSTED, now=self._clock.now())
            await self._scores.update(failed)
            return failed
        score = score.model_copy(update={"message_channel": case.channel_id, "message_ts": ts})
        await self._scores.update(score)
        await self._audit.record(
            AuditEntry(
                team_id=case.team_id,
                case_id=case.case_id,
                actor=score.score_triggered_by,
                action="scoring.requested",
                detail={"score_id": score.score_id, "force": force},
                source=source,
                at=self._clock.now(),
            )
        )
        await self._intake.score_run(ScoreRunWork(team_id=case.team_id, score_id=score.score_id))
        return score
