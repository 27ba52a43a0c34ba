"""Every row of the seed's status table, finished cases only, and one scoring under races."""

from __future__ import annotations

import asyncio

import pytest

from domain.errors import IllegalTransitionError, PreconditionFailedError
from domain.scoring.lifecycle import check_transition, new_scoring
from domain.scoring.model import ScoringStatus, SessionScore
from domain.scoring.requests import RequestOutcome, decide, request_scoring
from tests.fakes.clock import START
from tests.fakes.scores import MemoryScores
from tests.integration.storage.builders import full_case, new_case

HASH = "a" * 64


def existing(case_id: str, status: ScoringStatus) -> SessionScore:
    score = new_scoring(case_id=case_id, by="U_EARLIER", criteria_hash=HASH, now=START)
    return score.model_copy(update={"status": status})


async def ask(
    scores: MemoryScores, *, force: bool, by: str = "U_ASKER"
) -> tuple[RequestOutcome, SessionScore]:
    result = await request_scoring(
        scores, case=CASE, by=by, force=force, now=START, criteria_hash=HASH
    )
    return result.outcome, result.score


CASE = full_case()


@pytest.mark.parametrize("force", [False, True])
async def test_no_existing_score_starts_a_new_pending_scoring(force: bool) -> None:
    scores = MemoryScores()

    outcome, score = await ask(scores, force=force)

    assert outcome is RequestOutcome.STARTED
    assert score.status is ScoringStatus.PENDING
    assert (score.case_id, score.score_triggered_by, score.prompt_hash) == (
        CASE.case_id,
        "U_ASKER",
        HASH,
    )
    assert list(scores.rows) == [score.score_id]


@pytest.mark.parametrize(
    "status",
    [
        ScoringStatus.COMPLETED,
        ScoringStatus.FAILED,
        ScoringStatus.PENDING,
        ScoringStatus.IN_PROGRESS,
    ],
)
async def test_without_force_the_existing_scoring_is_the_answer(status: ScoringStatus) -> None:
    scores = MemoryScores()
    earlier = await scores.create(existing(CASE.case_id, ScoringStatus.PENDING))
    await scores.update(earlier.model_copy(update={"status": status}))

    outcome, score = await ask(scores, force=False)

    assert outcome is RequestOutcome.EXISTING
    assert (score.score_id, score.status) == (earlier.score_id, status)
    assert len(scores.rows) == 1


@pytest.mark.parametrize("status", [ScoringStatus.COMPLETED, ScoringStatus.FAILED])
async def test_forcing_after_a_finished_scoring_starts_a_new_one(status: ScoringStatus) -> None:
    scores = MemoryScores()
    earlier = await scores.create(existing(CASE.case_id, ScoringStatus.PENDING))
    await scores.update(earlier.model_copy(update={"status": status}))

    outcome, score = await ask(scores, force=True)

    assert outcome is RequestOutcome.STARTED
    assert score.score_id != earlier.score_id
    assert score.status is ScoringStatus.PENDING
    assert len(scores.rows) == 2, "all past scores are kept"


@pytest.mark.parametrize("status", [ScoringStatus.PENDING, ScoringStatus.IN_PROGRESS])
async def test_forcing_while_one_runs_answers_that_one_is_already_running(
    status: ScoringStatus,
) -> None:
    scores = MemoryScores()
    earlier = await scores.create(existing(CASE.case_id, ScoringStatus.PENDING))
    await scores.update(earlier.model_copy(update={"status": status}))

    outcome, score = await ask(scores, force=True)

    assert outcome is RequestOutcome.CONFLICT
    assert score.score_id == earlier.score_id
    assert len(scores.rows) == 1


def test_the_table_as_a_function() -> None:
    done = existing("c", ScoringStatus.COMPLETED)
    running = existing("c", ScoringStatus.IN_PROGRESS)

    assert decide(None, force=False) is RequestOutcome.STARTED
    assert decide(None, force=True) is RequestOutcome.STARTED
    assert decide(done, force=False) is RequestOutcome.EXISTING
    assert decide(done, force=True) is RequestOutcome.STARTED
    assert decide(running, force=False) is RequestOutcome.EXISTING
    assert decide(running, force=True) is RequestOutcome.CONFLICT


async def test_an_active_scoring_wins_over_a_newer_finished_one() -> None:
    scores = MemoryScores()
    active = await scores.create(existing(CASE.case_id, ScoringStatus.PENDING))
    later = existing(CASE.case_id, ScoringStatus.COMPLETED).model_copy(
        update={"scored_at_us": active.scored_at_us + 1}
    )
    scores.rows[later.score_id] = later

    outcome, score = await ask(scores, force=True)

    assert (outcome, score.score_id) == (RequestOutcome.CONFLICT, active.score_id)


async def test_an_unfinished_case_cannot_be_scored() -> None:
    with pytest.raises(PreconditionFailedError):
        await request_scoring(
            MemoryScores(), case=new_case(), by="U", force=False, now=START, criteria_hash=HASH
        )


async def test_two_requests_at_once_make_one_scoring() -> None:
    scores = MemoryScores()

    results = await asyncio.gather(ask(scores, force=False), ask(scores, force=False))

    assert sorted(outcome for outcome, _ in results) == [
        RequestOutcome.EXISTING,
        RequestOutcome.STARTED,
    ]
    assert len({score.score_id for _, score in results}) == 1
    assert len(scores.rows) == 1


class LosingRace(MemoryScores):
    """Another process creates its scoring between our look and our insert."""

    async def create(self, score: SessionScore) -> SessionScore:
        if not self.rows:
            await super().create(existing(score.case_id, ScoringStatus.PENDING))
        return await super().create(score)


@pytest.mark.parametrize(
    ("force", "expected"), [(False, RequestOutcome.EXISTING), (True, RequestOutcome.CONFLICT)]
)
async def test_losing_the_race_answers_with_the_winners_scoring(
    force: bool, expected: RequestOutcome
) -> None:
    scores = LosingRace()

    outcome, score = await ask(scores, force=force)

    assert outcome is expected
    assert score.score_triggered_by == "U_EARLIER"
    assert len(scores.rows) == 1


@pytest.mark.parametrize(
    ("current", "to"),
    [
        (ScoringStatus.PENDING, ScoringStatus.COMPLETED),
        (ScoringStatus.COMPLETED, ScoringStatus.IN_PROGRESS),
        (ScoringStatus.FAILED, ScoringStatus.IN_PROGRESS),
        (ScoringStatus.COMPLETED, ScoringStatus.FAILED),
        (ScoringStatus.IN_PROGRESS, ScoringStatus.PENDING),
    ],
)
def test_illegal_moves_are_rejected(current: ScoringStatus, to: ScoringStatus) -> None:
    with pytest.raises(IllegalTransitionError):
        check_transition(current, to)
