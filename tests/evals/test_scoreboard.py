"""The scoreboard tells a competent investigator from a poor one, on every deterministic metric."""

from __future__ import annotations

import pytest

from evals.scenario import Kind
from evals.scoring.compare import METRICS, shortfalls
from evals.scoring.report import to_markdown
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
    turns = {r.scenario_id: r.turns_to_root_cause for r in competent.results if r.found}
    # the overreaching scenario states its tempting cause first and the truth a turn later
    assert turns.pop("session-evictions-overreach") == 4
    assert set(turns.values()) == {3}
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
    looks = poor.second_look
    assert looks is not None
    assert looks.brier_without is not None
    assert looks.brier_without > 0.8, "as stated, its confident guesses are badly calibrated"
    assert looks.lowered == looks.checks == s.calibration_points, "none cites what the case holds"
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
    assert set(competent.run.prompt_hashes) == {"consulting", "investigating", "second_look"}
    assert competent.run.models == ["scripted/competent"]
    assert competent.summary.cost_usd == 0.0


def test_the_second_look_lowers_only_the_overreaching_root_cause_and_says_what_it_cost(
    competent: Scoreboard,
) -> None:
    looks = competent.second_look
    assert looks is not None
    assert looks.checks == competent.summary.calibration_points + 1  # the overreach, then truth
    assert looks.lowered == 1
    (overreach,) = [r for r in competent.results if r.scenario_id == "session-evictions-overreach"]
    first, last = overreach.second_look.looks
    assert (first.before, first.after, first.right) == (0.9, 0.6, False)
    assert last.after == last.before
    assert looks.mean_change < 0
    assert looks.checked_brier_after is not None
    assert looks.checked_brier_before is not None
    assert looks.checked_brier_after < looks.checked_brier_before
    assert looks.brier_with == looks.brier_without == competent.summary.brier
    assert looks.token_share is not None
    assert 0 < looks.token_share < 0.5


def test_the_scoreboard_prints_the_second_look(competent: Scoreboard) -> None:
    text = to_markdown(competent)
    assert "| Root causes checked / lowered / check failed |" in text
    assert "| Brier score of final root causes, with / without it |" in text
    assert "| Its share of the tokens of the turns it was taken in |" in text
