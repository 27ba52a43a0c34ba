"""The figures that need no model: decisive lines in an upload's findings, runbooks found."""

from __future__ import annotations

from evals.product import (
    ProductFigures,
    ScenarioFigures,
    decisive_rank,
    measure,
    product_lines,
    runbook_files,
)
from evals.scenario import load_scenarios
from tests.fakes.rag import HashingEmbedder

SCENARIOS = {s.id: s for s in load_scenarios()}


def test_a_decisive_log_line_is_ranked_among_the_findings_of_its_upload() -> None:
    # the pool maximum of 10 is logged once at start-up; the timeouts and a slow lookup rank first
    assert decisive_rank(SCENARIOS["db-pool-cut"]) == 3


def test_a_decisive_line_in_a_file_read_as_plain_text_is_not_among_any_findings() -> None:
    assert decisive_rank(SCENARIOS["k8s-job-syntax-error"]) is None


def test_every_named_runbook_is_a_bundled_one() -> None:
    titles = {title for title, _ in runbook_files()}
    named = {s.runbook for s in SCENARIOS.values() if s.runbook}
    assert named
    assert named <= titles


async def test_without_a_search_only_the_findings_are_measured() -> None:
    figures = await measure([SCENARIOS["db-pool-cut"], SCENARIOS["clock-skew"]], search=False)

    assert not figures.runbooks_searched
    assert figures.decisive == (2, 2)
    assert "Runbooks: not searched in this run." in product_lines(figures)


async def test_the_runbook_is_searched_with_the_confirmed_problem_in_the_real_service() -> None:
    watchdog = SCENARIOS["alertmanager-watchdog"]

    figures = await measure([watchdog], embedder=HashingEmbedder())

    (figure,) = figures.scenarios
    assert (figure.runbook, figure.runbook_found) == ("Watchdog", True)
    assert figure.decisive_found is None  # it marks no decisive line


def test_the_table_shows_each_scenario_with_its_ranks() -> None:
    figures = ProductFigures(
        scenarios=[
            ScenarioFigures(scenario_id="a", decisive_marked=True, decisive_rank=7),
            ScenarioFigures(scenario_id="b", runbook="R", runbook_rank=1),
        ]
    )

    lines = product_lines(figures)

    assert "| a | ❌ 7 | — |" in lines
    assert "| b | — | ✅ 1 |" in lines
    assert any("0 of 1 scenarios that mark one" in line for line in lines)
