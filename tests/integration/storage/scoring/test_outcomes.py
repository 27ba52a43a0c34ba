"""Root-cause ratings and case outcomes: one rating per person, one outcome per case."""

from __future__ import annotations

from domain.outcomes import ConclusionFeedback, Outcome, Rating, Verdict
from storage import Repositories
from tests.integration.storage.case_parts import at


def rating(user: str, value: Rating, minute: int, **changes: object) -> ConclusionFeedback:
    """One person's rating of conclusion rc_1 of case-1."""
    fields: dict[str, object] = {
        "team_id": "T1",
        "case_id": "case-1",
        "conclusion_id": "rc_1",
        "user_id": user,
        "rating": value,
        "confidence": 0.8,
        "model": "openai/gpt-4o-mini",
        "at": at(minute),
    }
    return ConclusionFeedback.model_validate(fields | changes)


def outcome(case_id: str, minute: int, **changes: object) -> Outcome:
    """A right outcome of ``case_id``, its case finished at ``minute``."""
    fields: dict[str, object] = {
        "team_id": "T1",
        "case_id": case_id,
        "conclusion_id": "rc_1",
        "confidence": 0.7,
        "model": "openai/gpt-4o-mini",
        "verdict": Verdict.RIGHT,
        "reason": "a person gave it 👍",
        "finished_at": at(minute),
        "recorded_at": at(minute),
    }
    return Outcome.model_validate(fields | changes)


async def test_a_second_rating_by_the_same_person_replaces_the_first(repos: Repositories) -> None:
    await repos.feedback.record(rating("W1", Rating.UP, 1))
    await repos.feedback.record(rating("W2", Rating.UP, 2))
    await repos.feedback.record(rating("W1", Rating.DOWN, 3))

    kept = await repos.feedback.list_for_case("case-1")

    assert [(f.user_id, f.rating) for f in kept] == [("W2", Rating.UP), ("W1", Rating.DOWN)]
    assert kept[1] == rating("W1", Rating.DOWN, 3)


async def test_ratings_of_other_conclusions_and_cases_are_kept_apart(repos: Repositories) -> None:
    await repos.feedback.record(rating("W1", Rating.UP, 1))
    await repos.feedback.record(rating("W1", Rating.DOWN, 2, conclusion_id="rc_2"))
    await repos.feedback.record(rating("W1", Rating.DOWN, 3, case_id="case-2", model=None))

    assert len(await repos.feedback.list_for_case("case-1")) == 2
    [other] = await repos.feedback.list_for_case("case-2")
    assert other.model is None


async def test_a_case_has_one_outcome_and_grading_it_again_replaces_it(
    repos: Repositories,
) -> None:
    await repos.outcomes.record(outcome("case-1", 1, verdict=Verdict.UNKNOWN))
    regraded = outcome("case-1", 1, verdict=Verdict.WRONG, recorded_at=at(9))
    await repos.outcomes.record(regraded)

    assert await repos.outcomes.get("case-1") == regraded
    assert await repos.outcomes.get("case-2") is None


async def test_recent_outcomes_are_the_workspaces_newest_finished_first(
    repos: Repositories,
) -> None:
    for case_id, minute in (("case-a", 3), ("case-b", 1), ("case-c", 2)):
        await repos.outcomes.record(outcome(case_id, minute))
    no_outcome = outcome(
        "case-d", 4, verdict=Verdict.NO_OUTCOME, conclusion_id=None, confidence=None, model=None
    )
    await repos.outcomes.record(no_outcome)
    await repos.outcomes.record(outcome("case-e", 5, team_id="T2"))

    recent = await repos.outcomes.list_recent("T1", limit=3)

    assert [o.case_id for o in recent] == ["case-d", "case-a", "case-c"]
    assert recent[0] == no_outcome
