"""Seen-before figures of a run: what the rule offered each new case, precision and recall."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from enum import StrEnum

from pydantic import Field

from domain.memory import DEFAULT_RULE, Eligible, MatchRule, decide
from evals.base import EvalModel


class ScenarioKind(StrEnum):
    """Why a new case is in the set."""

    REPEAT = "repeat"
    NEW = "new"
    TRAP = "trap"


class SeenBeforeResult(EvalModel):
    """What the rule did for one new case."""

    scenario_id: str
    kind: ScenarioKind
    expected: str | None
    offered: str | None
    score: float | None
    """The offered (else the best eligible) past case's similarity."""
    best: str | None
    """The best eligible past case, offered or not."""
    also_seen: list[str] = Field(default_factory=list)
    """Earlier cases of the same incident named with the offered one."""

    @property
    def correct(self) -> bool:
        """Offered the expected past case, or nothing when none was expected."""
        return self.offered == self.expected


class SeenBeforeSummary(EvalModel):
    """Seen-before precision and recall at one rule."""

    threshold: float
    margin: float
    scenarios: int
    repeats: int
    """New cases that should be matched to a past case."""
    offered: int
    right_offers: int
    precision: float | None
    """Right offers over offers (None when nothing was offered)."""
    recall: float
    """Right offers over repeats."""
    results: list[SeenBeforeResult]


class SeenBeforeScenario(EvalModel):
    """A new case's confirmed problem and the past case that should be offered, if any."""

    id: str
    kind: ScenarioKind
    problem: str
    expected: str | None
    why: str = ""


def summarize(
    scenarios: Sequence[SeenBeforeScenario],
    found: Mapping[str, Sequence[Eligible]],
    rule: MatchRule = DEFAULT_RULE,
) -> SeenBeforeSummary:
    """Precision and recall of the rule over the scenarios."""
    results = [_result(s, found[s.id], rule) for s in scenarios]
    offers = [r for r in results if r.offered is not None]
    right = sum(1 for r in offers if r.correct)
    repeats = sum(1 for r in results if r.expected is not None)
    return SeenBeforeSummary(
        threshold=rule.threshold,
        margin=rule.margin,
        scenarios=len(results),
        repeats=repeats,
        offered=len(offers),
        right_offers=right,
        precision=right / len(offers) if offers else None,
        recall=right / repeats if repeats else 0.0,
        results=results,
    )


def _result(
    scenario: SeenBeforeScenario, eligible: Sequence[Eligible], rule: MatchRule
) -> SeenBeforeResult:
    match = decide(eligible, rule)
    best = eligible[0] if eligible else None
    return SeenBeforeResult(
        scenario_id=scenario.id,
        kind=scenario.kind,
        expected=scenario.expected,
        offered=match.short_id if match else None,
        also_seen=match.also_seen if match else [],
        score=match.score if match else (round(best.candidate.score, 4) if best else None),
        best=best.case.short_id if best else None,
    )


def seen_before_lines(summary: SeenBeforeSummary | None) -> list[str]:
    """The scoreboard's seen-before section (nothing when it was not measured)."""
    if summary is None:
        return []
    precision = "n/a" if summary.precision is None else f"{summary.precision:.0%}"
    head = [
        "",
        "## Seen before",
        "",
        f"At similarity ≥ {summary.threshold:.2f} and a lead of {summary.margin:.2f}: precision "
        f"{precision} ({summary.right_offers} of {summary.offered} offers named the right past "
        f"case), recall {summary.recall:.0%} ({summary.right_offers} of {summary.repeats} "
        "repeats offered theirs).",
        "",
        "| New case | Kind | Expected | Offered | Score | Best eligible |",
        "|---|---|---|---|---|---|",
    ]
    rows = [
        f"| {r.scenario_id} | {r.kind.value} | {r.expected or '—'} | {_offered(r)} "
        f"| {'' if r.score is None else f'{r.score:.3f}'} | {r.best or '—'} |"
        for r in summary.results
    ]
    return head + rows


def _offered(result: SeenBeforeResult) -> str:
    if result.offered is None:
        return "—"
    also = f" (also {', '.join(result.also_seen)})" if result.also_seen else ""
    return result.offered + also
