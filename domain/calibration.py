"""Calibration of stated root-cause confidence against correctness: pure functions.

The evaluation scoreboard and `/fm calibration` (outcomes of real cases) both use them. A point
is (stated confidence, was the root cause right). The Brier score is the mean squared gap between
the two (0 is perfect; always saying 0.5 scores 0.25). The expected calibration error (ECE) sorts
points into equal-width confidence bins and averages each bin's gap between its accuracy and its
mean confidence, weighted by how many points it holds.

Five bins of width 0.2: an evaluation suite, or a team's recent cases, holds a few dozen points,
and ten bins would leave most of them holding one to three points, so their accuracy would be
noise; five still separate a guess (<0.4), a coin flip (0.4-0.6), a probable cause (0.6-0.8) and
a verified one (≥0.8).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

ECE_BINS = 5
Point = tuple[float, bool]
_EDGE = 1e-9
"""0.6 * 5 is 2.9999999999999996 in floating point; nudge so a value on an edge opens its bin."""


@dataclass(frozen=True)
class Bin:
    """One confidence bin of the reliability diagram."""

    lower: float
    upper: float
    count: int
    accuracy: float | None
    """Share of the bin's points that were right (None when empty)."""
    mean_confidence: float | None


def _check(points: Sequence[Point]) -> None:
    for confidence, _ in points:
        if not 0.0 <= confidence <= 1.0:
            raise ValueError(f"confidence must be within 0-1, got {confidence}")


def brier_score(points: Sequence[Point]) -> float | None:
    """Mean of (confidence - outcome)²; None without points."""
    _check(points)
    if not points:
        return None
    return sum((c - float(right)) ** 2 for c, right in points) / len(points)


def bin_index(confidence: float, bins: int = ECE_BINS) -> int:
    """The bin of a confidence: [0, 1/b), [1/b, 2/b), …, the last one closed at 1.0."""
    return min(int(confidence * bins + _EDGE), bins - 1)


def reliability_bins(points: Sequence[Point], bins: int = ECE_BINS) -> list[Bin]:
    """Count, accuracy and mean confidence of every bin, empty ones included."""
    _check(points)
    if bins < 1:
        raise ValueError("at least one bin")
    members: list[list[Point]] = [[] for _ in range(bins)]
    for point in points:
        members[bin_index(point[0], bins)].append(point)
    return [_bin(i, bins, held) for i, held in enumerate(members)]


def _bin(index: int, bins: int, held: list[Point]) -> Bin:
    lower, upper = index / bins, (index + 1) / bins
    if not held:
        return Bin(lower, upper, 0, None, None)
    accuracy = sum(1 for _, right in held if right) / len(held)
    confidence = sum(c for c, _ in held) / len(held)
    return Bin(lower, upper, len(held), accuracy, confidence)


def expected_calibration_error(points: Sequence[Point], bins: int = ECE_BINS) -> float | None:
    """Σ (bin count / all) × |bin accuracy − bin mean confidence|; None without points."""
    table = reliability_bins(points, bins)
    if not points:
        return None
    total = len(points)
    return sum(
        b.count / total * abs(b.accuracy - b.mean_confidence)
        for b in table
        if b.accuracy is not None and b.mean_confidence is not None
    )
