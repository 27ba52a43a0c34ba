"""What the second look did: per case from the replies and call records, then over a run.

A second look is taken on a root cause stated at 0.7 or more (``domain/engine/second_look.py``);
each reply that took one says so in its debug note (confidence before and after, links not shown
yet). Its cost comes from the call records: the ``second_look`` call and the turn's own call just
before it in the same case.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise
from statistics import mean

from pydantic import Field

from domain.calibration import brier_score
from domain.llm import LLMCallRecord
from evals.base import EvalModel
from evals.scoring.verdicts import claim_correct
from evals.session import Session

TEMPLATE = "second_look"


class Look(EvalModel):
    """One second look: the confidence stated, the one shown, and whether the claim is right."""

    before: float
    after: float
    right: bool
    failed: bool = False


class CaseLooks(EvalModel):
    """The second looks of one case, what they cost, and the final claim before its look."""

    looks: list[Look] = Field(default_factory=list)
    final_before: float | None = None
    """The final root cause's confidence as the model stated it (before any second look)."""
    tokens: int = 0
    """Tokens of the second-look calls."""
    turn_tokens: int = 0
    """Tokens of the turn calls the second looks followed."""


class SecondLookSummary(EvalModel):
    """The second look over a run: how often, how much it lowered, what it did to calibration."""

    checks: int
    lowered: int
    failed: int
    mean_change: float
    """Mean change of confidence over every look (0 or below: it never raises)."""
    brier_with: float | None
    """Brier score of the final root causes as shown (the scoreboard's)."""
    brier_without: float | None
    """The same root causes at the confidence the model stated."""
    checked_brier_before: float | None
    """Brier score of every root cause the second look checked, as stated..."""
    checked_brier_after: float | None
    """... and as shown after the check."""
    tokens: int
    token_share: float | None
    """The second look's share of the tokens of the turns it was taken in."""


def _tokens(record: LLMCallRecord) -> int:
    return (record.prompt_tokens or 0) + (record.completion_tokens or 0)


def case_looks(session: Session, records: Sequence[LLMCallRecord]) -> CaseLooks:
    """The second looks of one finished case, from its replies and its call records."""
    scenario = session.scenario
    looks: list[Look] = []
    final_before: float | None = None
    rc = session.case.root_cause_conclusion
    for step in session.steps:
        note = step.reply.debug.second_look
        if note is None or step.claim is None:
            continue
        looks.append(
            Look(
                before=note.before,
                after=note.after,
                right=claim_correct(scenario, step.claim[0]),
                failed=note.failed,
            )
        )
        if rc is not None and step.claim == (rc.root_cause, rc.confidence_score):
            final_before = note.before
    if rc is not None and final_before is None:
        final_before = rc.confidence_score
    tokens = turn_tokens = 0
    for before, record in pairwise(records):
        if record.template == TEMPLATE:
            tokens += _tokens(record)
            turn_tokens += _tokens(before)
    return CaseLooks(looks=looks, final_before=final_before, tokens=tokens, turn_tokens=turn_tokens)


def summarize_looks(
    cases: Sequence[tuple[CaseLooks, bool | None]], brier_with: float | None
) -> SecondLookSummary:
    """Over a run: ``cases`` pairs each case's looks with whether its final claim is right."""
    looks = [look for case, _ in cases for look in case.looks]
    without = [
        (case.final_before, right)
        for case, right in cases
        if case.final_before is not None and right is not None
    ]
    tokens = sum(case.tokens for case, _ in cases)
    spent = tokens + sum(case.turn_tokens for case, _ in cases)
    return SecondLookSummary(
        checks=len(looks),
        lowered=sum(1 for look in looks if look.after < look.before),
        failed=sum(1 for look in looks if look.failed),
        mean_change=round(mean(look.after - look.before for look in looks), 4) if looks else 0.0,
        brier_with=brier_with,
        brier_without=brier_score(without),
        checked_brier_before=brier_score([(look.before, look.right) for look in looks]),
        checked_brier_after=brier_score([(look.after, look.right) for look in looks]),
        tokens=tokens,
        token_share=tokens / spent if spent else None,
    )


def _num(value: float | None, digits: int = 3) -> str:
    return "n/a" if value is None else f"{value:.{digits}f}"


def second_look_lines(summary: SecondLookSummary | None) -> list[str]:
    """The second look's figures as a markdown table (nothing when the run did not measure)."""
    if summary is None:
        return []
    share = "n/a" if summary.token_share is None else f"{summary.token_share:.0%}"
    rows = [
        (
            "Root causes checked / lowered / check failed",
            f"{summary.checks} / {summary.lowered} / {summary.failed}",
        ),
        ("Mean confidence change", f"{summary.mean_change:+.3f}"),
        (
            "Brier score of final root causes, with / without it",
            f"{_num(summary.brier_with)} / {_num(summary.brier_without)}",
        ),
        (
            "Brier score of the root causes it checked, after / before",
            f"{_num(summary.checked_brier_after)} / {_num(summary.checked_brier_before)}",
        ),
        ("Its share of the tokens of the turns it was taken in", share),
        ("Its tokens", str(summary.tokens)),
    ]
    return [
        "",
        "Second look (a confident root cause checked against the evidence the case holds):",
        "",
        "| Metric | Value |",
        "|---|---|",
        *(f"| {k} | {v} |" for k, v in rows),
    ]
