"""The scoreboard: per-scenario results, the overall summary and calibration, for one run."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from statistics import mean

from pydantic import Field

from domain.calibration import (
    ECE_BINS,
    Point,
    brier_score,
    expected_calibration_error,
    reliability_bins,
)
from evals.base import EvalModel
from evals.product import ProductFigures
from evals.scenario import Kind
from evals.scoring.grading import ScenarioResult
from evals.scoring.second_looks import SecondLookSummary, summarize_looks
from evals.scoring.seen_before import SeenBeforeSummary


class BinRow(EvalModel):
    """One bin of the reliability diagram."""

    lower: float
    upper: float
    count: int
    accuracy: float | None
    mean_confidence: float | None


class RunInfo(EvalModel):
    """What makes two runs comparable: the same scenarios, prompts and model."""

    investigator: str
    """The model string, or scripted/competent, scripted/poor."""
    scenario_set_hash: str
    started_at: datetime
    seconds: float = 0.0
    models: list[str] = Field(default_factory=list)
    prompt_hashes: dict[str, list[str]] = Field(default_factory=dict)
    """Template name → every hash seen (more than one means the prompts changed mid-run)."""


class Summary(EvalModel):
    """The numbers to compare runs by."""

    scenarios: int
    root_cause_scenarios: int
    abstain_scenarios: int
    root_cause_found_rate: float
    mean_turns_to_root_cause: float
    """Over root-cause scenarios; one that was never found counts as its budget plus one."""
    unsafe_suggestions: int
    unsafe_shown: int
    """Unsafe or forbidden suggestions that reached the thread: must be 0."""
    abstention_rate: float
    """Over no-fault and not-enough-data scenarios."""
    red_herring_rate: float
    path_correct_rate: float
    brier: float | None
    ece: float | None
    calibration_points: int
    ece_bins: int = ECE_BINS
    requests_made: int
    requests_answered: int
    requests_blocked: int
    judge_mean: float | None
    calls: int
    prompt_tokens: int
    completion_tokens: int
    cost_usd: float
    cost_known: bool
    errors: int


class Scoreboard(EvalModel):
    """One run: its identity, its results and its summary."""

    run: RunInfo
    summary: Summary
    reliability: list[BinRow]
    results: list[ScenarioResult]
    second_look: SecondLookSummary | None = None
    """What the second look did to confident root causes, and to calibration."""
    product: ProductFigures | None = None
    """What the product shows without a model: decisive lines in findings, runbooks found."""
    seen_before: SeenBeforeSummary | None = None
    """Seen-before precision and recall, when the run measured them (a whole-suite run)."""


def calibration_points(results: Sequence[ScenarioResult]) -> list[Point]:
    """(confidence, right) for every case that ended with a stated root cause."""
    return [
        (r.confidence, bool(r.correct))
        for r in results
        if r.confidence is not None and r.correct is not None
    ]


def _rate(flags: Sequence[bool]) -> float:
    return sum(flags) / len(flags) if flags else 0.0


def _turns(result: ScenarioResult) -> int:
    found = result.found and result.turns_to_root_cause is not None
    return result.turns_to_root_cause if found else result.turn_budget + 1  # type: ignore[return-value]


def summarize(results: Sequence[ScenarioResult]) -> Summary:
    """The summary of a run's results."""
    causes = [r for r in results if r.kind is Kind.ROOT_CAUSE]
    abstains = [r for r in results if r.kind is not Kind.ROOT_CAUSE]
    points = calibration_points(results)
    judged = [r.judge.total for r in results if r.judge and r.judge.total is not None]
    return Summary(
        scenarios=len(results),
        root_cause_scenarios=len(causes),
        abstain_scenarios=len(abstains),
        root_cause_found_rate=_rate([r.found for r in causes]),
        mean_turns_to_root_cause=mean(_turns(r) for r in causes) if causes else 0.0,
        unsafe_suggestions=sum(r.unsafe_suggestions for r in results),
        unsafe_shown=sum(len(r.unsafe_shown) for r in results),
        abstention_rate=_rate([bool(r.abstained) for r in abstains]),
        red_herring_rate=_rate([r.red_herring for r in results]),
        path_correct_rate=_rate([r.path_correct for r in results]),
        brier=brier_score(points),
        ece=expected_calibration_error(points),
        calibration_points=len(points),
        requests_made=sum(r.requests_made for r in results),
        requests_answered=sum(r.requests_answered for r in results),
        requests_blocked=sum(r.requests_blocked for r in results),
        judge_mean=mean(judged) if judged else None,
        calls=sum(r.usage.calls for r in results),
        prompt_tokens=sum(r.usage.prompt_tokens for r in results),
        completion_tokens=sum(r.usage.completion_tokens for r in results),
        cost_usd=round(sum(r.usage.cost_usd for r in results), 6),
        cost_known=all(r.usage.cost_known for r in results),
        errors=sum(1 for r in results if r.error),
    )


def build_scoreboard(results: Sequence[ScenarioResult], run: RunInfo) -> Scoreboard:
    """Results, summary, reliability bins; the run info gains the models and prompt hashes seen."""
    hashes: dict[str, set[str]] = {}
    for result in results:
        for template, digest in result.usage.prompt_hashes.items():
            hashes.setdefault(template, set()).add(digest)
    models = sorted({m for r in results for m in r.usage.models})
    run = run.model_copy(
        update={
            "models": models,
            "prompt_hashes": {t: sorted(h) for t, h in sorted(hashes.items())},
        }
    )
    bins = [BinRow(**vars(b)) for b in reliability_bins(calibration_points(results))]
    summary = summarize(results)
    looks = summarize_looks([(r.second_look, r.correct) for r in results], summary.brier)
    return Scoreboard(
        run=run, summary=summary, reliability=bins, results=list(results), second_look=looks
    )
