"""Requests to score a case: the seed's status table, and one scoring per case even under races.

| existing scoring        | force | outcome                                   |
|-------------------------|-------|-------------------------------------------|
| none                    | any   | STARTED: a new pending scoring            |
| completed / failed      | no    | EXISTING: that scoring is the answer      |
| pending / in_progress   | no    | EXISTING: that scoring is the answer      |
| completed / failed      | yes   | STARTED: a new pending scoring            |
| pending / in_progress   | yes   | CONFLICT: one is already running          |

Two requests at once both see "none"; the partial unique index lets one create its scoring and the
other then finds it and answers as the table says for an active scoring.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

from domain.case import Case
from domain.errors import PreconditionFailedError, ScoringInProgressError
from domain.ports import ScoreRepository
from domain.scoring.lifecycle import new_scoring
from domain.scoring.model import ScoringStatus, SessionScore

CREATE_ATTEMPTS = 3


class RequestOutcome(StrEnum):
    """What a request to score a case did."""

    STARTED = "started"
    """A new scoring was created (pending); the job will run it."""
    EXISTING = "existing"
    """The case's existing scoring is the answer (no new one)."""
    CONFLICT = "conflict"
    """A re-score was forced while a scoring is pending or running."""


@dataclass(frozen=True)
class RequestResult:
    """The outcome and the scoring it is about (the new one, or the existing one)."""

    outcome: RequestOutcome
    score: SessionScore


def decide(existing: SessionScore | None, *, force: bool) -> RequestOutcome:
    """The seed's status table for a request, given the case's current scoring."""
    if existing is None:
        return RequestOutcome.STARTED
    active = existing.status in ScoringStatus.active_values()
    if force:
        return RequestOutcome.CONFLICT if active else RequestOutcome.STARTED
    return RequestOutcome.EXISTING


async def current_scoring(scores: ScoreRepository, case_id: str) -> SessionScore | None:
    """The scoring a request is decided against: the active one, else the newest."""
    return await scores.active_for_case(case_id) or await scores.latest_for_case(case_id)


async def request_scoring(
    scores: ScoreRepository,
    *,
    case: Case,
    by: str,
    force: bool,
    now: datetime,
    criteria_hash: str,
) -> RequestResult:
    """Apply the status table; create the new scoring when it says so (finished cases only)."""
    if not case.is_terminal:
        raise PreconditionFailedError("only resolved or closed cases can be scored")
    for _ in range(CREATE_ATTEMPTS):
        existing = await current_scoring(scores, case.case_id)
        outcome = decide(existing, force=force)
        if outcome is not RequestOutcome.STARTED:
            assert existing is not None  # only "no scoring" starts without one
            return RequestResult(outcome, existing)
        fresh = new_scoring(case_id=case.case_id, by=by, criteria_hash=criteria_hash, now=now)
        try:
            return RequestResult(RequestOutcome.STARTED, await scores.create(fresh))
        except ScoringInProgressError:
            # Someone else's request won the race: decide again against their scoring.
            continue
    raise ScoringInProgressError(f"case {case.case_id} keeps getting new scorings")
