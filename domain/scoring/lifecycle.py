"""A scoring's lifecycle: pending → in_progress → completed | failed, checked at every move.

Results are kept only by a completed scoring (a failed one says why in words fit to show people);
completed and failed scorings are final.
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

from domain.errors import IllegalTransitionError
from domain.scoring.extract import ExtractedScore
from domain.scoring.model import CaseFacts, ScoringPhase, ScoringStatus, SessionScore

TRANSITIONS: dict[ScoringStatus, frozenset[ScoringStatus]] = {
    ScoringStatus.PENDING: frozenset({ScoringStatus.IN_PROGRESS, ScoringStatus.FAILED}),
    # in_progress → in_progress is a change of phase.
    ScoringStatus.IN_PROGRESS: frozenset(
        {ScoringStatus.IN_PROGRESS, ScoringStatus.COMPLETED, ScoringStatus.FAILED}
    ),
    ScoringStatus.COMPLETED: frozenset(),
    ScoringStatus.FAILED: frozenset(),
}
ORPHANED_REASON = "FaultMaven restarted before this scoring finished."
STOPPED_REASON = "FaultMaven was stopped while the judge was working."
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def to_us(moment: datetime) -> int:
    """Microseconds since the epoch (the seed's timestamps)."""
    return (moment - _EPOCH) // timedelta(microseconds=1)


def from_us(us: int) -> datetime:
    """The moment a microsecond timestamp stands for."""
    return _EPOCH + timedelta(microseconds=us)


def check_transition(current: ScoringStatus, to: ScoringStatus) -> None:
    """Raise IllegalTransitionError unless the table allows ``current`` → ``to``."""
    if to not in TRANSITIONS[current]:
        raise IllegalTransitionError(f"a scoring cannot go from {current} to {to}")


def new_scoring(*, case_id: str, by: str, criteria_hash: str, now: datetime) -> SessionScore:
    """A pending scoring, as a request creates it."""
    now_us = to_us(now)
    return SessionScore(
        score_id=str(uuid.uuid4()),
        case_id=case_id,
        prompt_hash=criteria_hash,
        score_triggered_by=by,
        scored_at_us=now_us,
        started_at_us=now_us,
    )


def start(score: SessionScore, *, facts: CaseFacts, now: datetime) -> SessionScore:
    """The judge starts evaluating: in progress, with the case's facts."""
    return _move(
        score,
        ScoringStatus.IN_PROGRESS,
        phase=ScoringPhase.EVALUATING,
        facts=facts,
        started_at_us=to_us(now),
    )


def enter_phase(score: SessionScore, phase: ScoringPhase) -> SessionScore:
    """The next judge turn starts."""
    return _move(score, ScoringStatus.IN_PROGRESS, phase=phase)


def complete(
    score: SessionScore, *, evaluation: ExtractedScore, missing_tools: str, now: datetime
) -> SessionScore:
    """Both turns answered: the total, the categories and both analyses are kept."""
    categories = {f"{c.value}_score": points for c, points in evaluation.categories.items()}
    return _move(
        score,
        ScoringStatus.COMPLETED,
        total_score=evaluation.total,
        score_analysis=evaluation.analysis,
        missing_tools_analysis=missing_tools,
        completed_at_us=to_us(now),
        **categories,
    )


def fail(score: SessionScore, *, reason: str, now: datetime) -> SessionScore:
    """The scoring stopped; ``reason`` is shown to people."""
    return _move(score, ScoringStatus.FAILED, error_message=reason, completed_at_us=to_us(now))


def _move(score: SessionScore, to: ScoringStatus, **changes: Any) -> SessionScore:
    check_transition(score.status, to)
    # Validated, unlike model_copy(update=…): a total out of range must not slip through.
    return SessionScore.model_validate({**score.model_dump(), "status": to, **changes})
