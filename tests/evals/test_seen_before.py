"""Seen before, measured: the set, precision and recall, the scoreboard's section, the threshold."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from datetime import UTC, datetime

import pytest

from domain.memory import DEFAULT_RULE, Candidate, CaseDocumentHit, Eligible, MatchRule
from domain.outcomes import Verdict
from evals.cli import with_seen_before
from evals.scoring.report import to_markdown
from evals.scoring.scoreboard import RunInfo, build_scoreboard
from evals.scoring.seen_before import ScenarioKind, SeenBeforeScenario, summarize
from evals.seen_before import (
    SWEEP_MARGINS,
    SWEEP_THRESHOLDS,
    bundled_embedder,
    load_set,
    measure,
    past_case,
    sweep_lines,
)
from rag.embeddings.embedder import Embedder, Vectors
from tests.fakes.rag import DIMENSION, HashingEmbedder

SET = load_set()
NOW = datetime(2026, 11, 27, 12, 0, tzinfo=UTC)
RUN = RunInfo(investigator="scripted/competent", scenario_set_hash="-", started_at=NOW)
BY_ID = {spec.id: spec for spec in SET.past_cases}


def scenario(scenario_id: str, expected: str | None) -> SeenBeforeScenario:
    kind = ScenarioKind.REPEAT if expected else ScenarioKind.NEW
    return SeenBeforeScenario(id=scenario_id, kind=kind, problem="p", expected=expected)


def eligible(*scored: tuple[str, float]) -> list[Eligible]:
    """Past cases of the set with the similarity their best excerpt had."""
    found = []
    for short_id, score in scored:
        case = past_case(BY_ID[short_id])
        hit = CaseDocumentHit(case_id=case.case_id, title="Case report", similarity=score)
        found.append(Eligible(Candidate(case.case_id, score, hit), case, None))
    return found


def test_the_set_has_repeats_new_incidents_and_traps_of_each_kind() -> None:
    kinds = {s.kind for s in SET.scenarios}
    traps = {s.id: s for s in SET.scenarios if s.kind is ScenarioKind.TRAP}

    assert kinds == set(ScenarioKind)
    assert sum(1 for s in SET.scenarios if s.expected) >= 10
    assert all(s.expected is None and s.why for s in traps.values())
    assert BY_ID["FM-W006"].verdict is Verdict.WRONG
    assert "trap-wrong-verdict" in traps
    assert BY_ID["FM-Z012"].status == "closed"
    assert "trap-closed-without-fix" in traps


def test_precision_counts_offers_and_recall_counts_repeats() -> None:
    scenarios = [
        scenario("hit", "FM-P001"),
        scenario("missed", "FM-C002"),
        scenario("wrong-one", "FM-D004"),
        scenario("false-alarm", None),
        scenario("quiet", None),
    ]
    found = {
        "hit": eligible(("FM-P001", 0.8)),
        "missed": eligible(("FM-C002", DEFAULT_RULE.threshold - 0.1)),
        "wrong-one": eligible(("FM-P013", 0.9), ("FM-D004", 0.5)),
        "false-alarm": eligible(("FM-K007", 0.9)),
        "quiet": [],
    }

    summary = summarize(scenarios, found)

    assert (summary.offered, summary.right_offers, summary.repeats) == (3, 1, 3)
    assert summary.precision == pytest.approx(1 / 3)
    assert summary.recall == pytest.approx(1 / 3)
    offered = {r.scenario_id: r.offered for r in summary.results}
    assert offered == {
        "hit": "FM-P001",
        "missed": None,
        "wrong-one": "FM-P013",
        "false-alarm": "FM-K007",
        "quiet": None,
    }


def test_nothing_offered_has_no_precision() -> None:
    summary = summarize([scenario("quiet", None)], {"quiet": []})

    assert summary.precision is None
    assert summary.recall == 0.0


def test_the_scoreboard_shows_seen_before_precision_and_recall() -> None:
    board = with_seen_before(build_scoreboard([], RUN), HashingEmbedder())

    assert board.seen_before is not None
    assert board.seen_before.scenarios == len(SET.scenarios)
    text = to_markdown(board)
    assert "## Seen before" in text
    assert f"At similarity ≥ {DEFAULT_RULE.threshold:.2f}" in text
    assert "precision" in text
    assert "recall" in text
    assert "| trap-wrong-verdict | trap | — |" in text


class BrokenEmbedder:
    """An embedding model whose files are missing."""

    @property
    def dimension(self) -> int:
        return DIMENSION

    async def embed(
        self, texts: Sequence[str], *, on_batch: Callable[[int], None] | None = None
    ) -> Vectors:
        raise FileNotFoundError("no model files in models/")


def test_without_an_embedding_model_the_run_says_seen_before_was_not_measured(
    capsys: pytest.CaptureFixture[str],
) -> None:
    board = with_seen_before(build_scoreboard([], RUN), BrokenEmbedder())

    assert board.seen_before is None
    out = capsys.readouterr().out
    assert out.startswith("Seen before: not measured (the history could not be stored: ")
    assert "FileNotFoundError" in out


@pytest.fixture(scope="module")
def model() -> Embedder:
    """The bundled embedding model the threshold was measured with."""
    return bundled_embedder()


@pytest.mark.slow
def test_at_the_chosen_threshold_every_offer_names_the_right_past_case(model: Embedder) -> None:
    (summary,) = asyncio.run(measure(model))

    results = {r.scenario_id: r for r in summary.results}
    assert summary.precision == 1.0
    assert summary.recall == 1.0
    # A resolved case's report and runbook are found for a paraphrased problem…
    assert results["repeat-pool-after-deploy"].offered == "FM-P014"
    # …the newest, when the incident recurred, naming the earlier one…
    assert results["repeat-pool-after-deploy"].also_seen == ["FM-P001"]
    # …a past case graded wrong, or closed without a fix, is never offered…
    assert results["trap-wrong-verdict"].offered is None
    assert results["trap-closed-without-fix"].offered is None
    # …and neither is a dissimilar one.
    assert all(r.offered is None for r in summary.results if r.kind is ScenarioKind.NEW)


@pytest.mark.slow
def test_the_traps_are_real_without_the_verdict_rule_the_wrong_case_would_be_offered(
    model: Embedder,
) -> None:
    (summary,) = asyncio.run(measure(model, rules=(MatchRule(excluded=frozenset()),)))

    results = {r.scenario_id: r for r in summary.results}
    assert results["trap-wrong-verdict"].offered == "FM-W006"


@pytest.mark.slow
def test_the_sweep_prints_each_threshold_and_margin(model: Embedder) -> None:
    rules = [MatchRule(threshold=t, margin=m) for t in SWEEP_THRESHOLDS for m in SWEEP_MARGINS]
    summaries = asyncio.run(measure(model, rules=rules))

    lines = sweep_lines(summaries)

    assert len(lines) == 2 + len(rules)
    lower = next(s for s in summaries if s.threshold < DEFAULT_RULE.threshold)
    assert lower.precision is not None
    assert lower.precision < 1.0  # a lower threshold lets a trap through: the choice is measured
