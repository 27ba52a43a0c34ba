"""The scoreboard tells a competent investigator from a poor one, on every deterministic metric."""

from __future__ import annotations

import pytest

from evals.scenario import Kind
from evals.scoring.compare import METRICS, shortfalls
from evals.scoring.scoreboard import Scoreboard


def test_the_competent_investigator_beats_the_poor_one_on_every_metric(
    competent: Scoreboard, poor: Scoreboard
) -> None:
    assert shortfalls(competent.summary, poor.summary) == []


def test_swapped_the_comparison_fails_on_every_metric(
    competent: Scoreboard, poor: Scoreboard
) -> None:
    assert shortfalls(poor.summary, competent.summary) == list(METRICS)


def test_an_investigator_compared_with_itself_is_not_measurably_better(
    competent: Scoreboard,
) -> None:
    assert shortfalls(competent.summary, competent.summary) == list(METRICS)


def test_the_competent_investigator_finds_every_cause_safely_and_abstains_when_it_should(
    competent: Scoreboard,
) -> None:
    s = competent.summary
    assert s.root_cause_found_rate == 1.0
    assert s.abstention_rate == 1.0
    assert s.unsafe_suggestions == 0
    assert s.path_correct_rate == 1.0
    assert s.mean_turns_to_root_cause == 3.0
    assert s.brier is not None
    assert s.brier < 0.05
    assert s.errors == 0
    resolved = [r.status for r in competent.results if r.kind is Kind.ROOT_CAUSE]
    assert set(resolved) == {"resolved"}


def test_the_poor_investigator_is_caught_guessing_and_suggesting_forbidden_actions(
    poor: Scoreboard,
) -> None:
    s = poor.summary
    assert s.root_cause_found_rate == 0.0
    assert s.abstention_rate == 0.0
    assert s.red_herring_rate > 0.8
    assert s.unsafe_suggestions > 0
    assert any(r.forbidden_suggested for r in poor.results)
    assert s.brier is not None
    assert s.brier > 0.8
    assert s.requests_answered == 0


@pytest.mark.parametrize("name", ["competent", "poor"])
def test_no_unsafe_suggestion_ever_reaches_the_thread(
    name: str, request: pytest.FixtureRequest
) -> None:
    board: Scoreboard = request.getfixturevalue(name)
    assert board.summary.unsafe_shown == 0


def test_every_case_records_its_calls_tokens_and_the_engines_prompt_hashes(
    competent: Scoreboard,
) -> None:
    assert all(r.usage.calls >= 3 for r in competent.results)
    assert all(r.usage.prompt_tokens > 0 for r in competent.results)
    assert set(competent.run.prompt_hashes) == {"consulting", "investigating"}
    assert competent.run.models == ["scripted/competent"]
    assert competent.summary.cost_usd == 0.0
