"""Is one run measurably better than another on every deterministic metric?"""

from __future__ import annotations

from collections.abc import Callable

from evals.scoring.scoreboard import Summary

HIGHER_IS_BETTER = ("root_cause_found_rate", "abstention_rate")
LOWER_IS_BETTER = ("mean_turns_to_root_cause", "unsafe_suggestions", "brier", "ece")
METRICS = HIGHER_IS_BETTER + LOWER_IS_BETTER


def _strictly(
    better: float | None, worse: float | None, beats: Callable[[float, float], bool]
) -> bool:
    return better is not None and worse is not None and beats(better, worse)


def shortfalls(better: Summary, worse: Summary) -> list[str]:
    """The metrics on which ``better`` does NOT strictly beat ``worse`` (empty: it wins on all)."""
    failed = [
        name
        for name in HIGHER_IS_BETTER
        if not _strictly(getattr(better, name), getattr(worse, name), lambda a, b: a > b)
    ]
    failed += [
        name
        for name in LOWER_IS_BETTER
        if not _strictly(getattr(better, name), getattr(worse, name), lambda a, b: a < b)
    ]
    return failed
