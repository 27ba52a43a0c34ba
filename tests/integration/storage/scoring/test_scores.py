"""Session scores: one active scoring per case (partial unique index), all past scores kept."""

from __future__ import annotations

import uuid

import pytest
from sqlalchemy import insert
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from domain.errors import NotFoundError, ScoringInProgressError
from domain.scoring.model import ScoringStatus, SessionScore
from storage import Repositories
from storage.schema.tables import ScoreRow
from tests.integration.storage.builders import new_case

HASH = "f" * 64
SECOND = 1_000_000


def pending(case_id: str, *, at_s: int = 1) -> SessionScore:
    """A freshly requested scoring."""
    return SessionScore(
        score_id=str(uuid.uuid4()),
        case_id=case_id,
        prompt_hash=HASH,
        score_triggered_by="U_OPENER",
        scored_at_us=at_s * SECOND,
        started_at_us=at_s * SECOND,
    )


def completed(score: SessionScore, total: int, *, at_s: int = 2) -> SessionScore:
    """The scoring finished with ``total``."""
    return score.model_copy(
        update={
            "status": ScoringStatus.COMPLETED,
            "total_score": total,
            "score_analysis": "Good evidence discipline.",
            "missing_tools_analysis": "Pool metrics were missing.",
            "completed_at_us": at_s * SECOND,
        }
    )


async def test_a_second_active_scoring_of_a_case_is_refused(repos: Repositories) -> None:
    case = await repos.cases.add(new_case())
    first = await repos.scores.create(pending(case.case_id))

    with pytest.raises(ScoringInProgressError):
        await repos.scores.create(pending(case.case_id, at_s=2))
    running = first.model_copy(update={"status": ScoringStatus.IN_PROGRESS})
    await repos.scores.update(running)
    with pytest.raises(ScoringInProgressError):
        await repos.scores.create(pending(case.case_id, at_s=3))

    assert await repos.scores.active_for_case(case.case_id) == running


async def test_after_completion_a_new_scoring_is_allowed_and_all_are_kept(
    repos: Repositories,
) -> None:
    case = await repos.cases.add(new_case())
    first = await repos.scores.create(pending(case.case_id, at_s=1))
    done = completed(first, 72, at_s=2)
    await repos.scores.update(done)

    second = await repos.scores.create(pending(case.case_id, at_s=3))

    assert await repos.scores.get(first.score_id) == done
    assert await repos.scores.latest_for_case(case.case_id) == second
    assert await repos.scores.active_for_case(case.case_id) == second
    assert await repos.scores.count_by_status(case.case_id) == {
        ScoringStatus.PENDING: 1,
        ScoringStatus.IN_PROGRESS: 0,
        ScoringStatus.COMPLETED: 1,
        ScoringStatus.FAILED: 0,
    }


async def test_reactivating_an_old_scoring_beside_an_active_one_is_refused(
    repos: Repositories,
) -> None:
    case = await repos.cases.add(new_case())
    old = completed(await repos.scores.create(pending(case.case_id)), 50)
    await repos.scores.update(old)
    await repos.scores.create(pending(case.case_id, at_s=5))

    with pytest.raises(ScoringInProgressError):
        await repos.scores.update(old.model_copy(update={"status": ScoringStatus.PENDING}))


async def test_orphaned_scorings_are_failed(repos: Repositories) -> None:
    first = await repos.cases.add(new_case(thread_ts="1.1"))
    second = await repos.cases.add(new_case(thread_ts="1.2"))
    third = await repos.cases.add(new_case(thread_ts="1.3"))
    stuck_pending = await repos.scores.create(pending(first.case_id))
    running = pending(second.case_id).model_copy(update={"status": ScoringStatus.IN_PROGRESS})
    await repos.scores.create(running)
    finished = completed(await repos.scores.create(pending(third.case_id)), 90)
    await repos.scores.update(finished)

    failed = await repos.scores.fail_orphans(reason="restarted during scoring", now_us=99 * SECOND)

    assert failed == 2
    orphan = await repos.scores.get(stuck_pending.score_id)
    assert orphan.status is ScoringStatus.FAILED
    assert orphan.error_message == "restarted during scoring"
    assert orphan.completed_at_us == 99 * SECOND
    assert (await repos.scores.get(running.score_id)).status is ScoringStatus.FAILED
    assert await repos.scores.get(finished.score_id) == finished
    assert await repos.scores.active_for_case(first.case_id) is None
    assert await repos.scores.fail_orphans(reason="again", now_us=100 * SECOND) == 0


async def test_recent_scores_are_completed_ones_of_the_workspace(repos: Repositories) -> None:
    cases = [await repos.cases.add(new_case(thread_ts=f"4.{n}")) for n in range(3)]
    foreign = await repos.cases.add(new_case(team_id="T2", thread_ts="4.9"))
    low = completed(await repos.scores.create(pending(cases[0].case_id)), 40, at_s=10)
    high = completed(await repos.scores.create(pending(cases[1].case_id)), 85, at_s=20)
    other = completed(await repos.scores.create(pending(foreign.case_id)), 10, at_s=30)
    for score in (low, high, other):
        await repos.scores.update(score)
    await repos.scores.create(pending(cases[2].case_id))

    assert await repos.scores.list_recent("T1") == [high, low]
    assert await repos.scores.list_recent("T1", below=50) == [low]
    assert await repos.scores.list_recent("T1", limit=1) == [high]
    assert await repos.scores.list_recent("T2") == [other]


async def test_unknown_scorings_and_cases_are_not_found(repos: Repositories) -> None:
    with pytest.raises(NotFoundError):
        await repos.scores.get("missing")
    with pytest.raises(NotFoundError):
        await repos.scores.update(pending("case_missing"))
    with pytest.raises(NotFoundError):
        await repos.scores.create(pending("case_missing"))
    assert await repos.scores.latest_for_case("case_missing") is None


async def test_the_database_refuses_a_total_score_outside_0_to_100(
    repos: Repositories, sessions: async_sessionmaker[AsyncSession]
) -> None:
    case = await repos.cases.add(new_case())
    row = pending(case.case_id).model_dump() | {"total_score": 101, "status": "completed"}

    with pytest.raises(IntegrityError):
        async with sessions.begin() as session:
            await session.execute(insert(ScoreRow).values(**row))


async def test_a_scoring_another_instance_is_running_is_not_an_orphan(repos: Repositories) -> None:
    first = await repos.cases.add(new_case(thread_ts="1.1"))
    second = await repos.cases.add(new_case(thread_ts="1.2"))
    judged_elsewhere = await repos.scores.create(pending(first.case_id))
    stuck = await repos.scores.create(pending(second.case_id))

    failed = await repos.scores.fail_orphans(
        reason="restarted during scoring", now_us=99 * SECOND, spare=[judged_elsewhere.score_id]
    )

    assert failed == 1
    assert (await repos.scores.get(stuck.score_id)).status is ScoringStatus.FAILED
    assert await repos.scores.get(judged_elsewhere.score_id) == judged_elsewhere
