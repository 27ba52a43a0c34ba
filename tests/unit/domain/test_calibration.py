"""Calibration maths, checked against examples worked by hand."""

from __future__ import annotations

import pytest

from domain.calibration import (
    ECE_BINS,
    bin_index,
    brier_score,
    expected_calibration_error,
    reliability_bins,
)

POINTS = [(0.9, True), (0.9, True), (0.9, False), (0.3, False), (0.3, True), (0.1, False)]


def test_brier_score_is_the_mean_squared_gap_between_confidence_and_outcome() -> None:
    # (0.9-1)² + (0.9-1)² + (0.9-0)² + (0.3-0)² + (0.3-1)² + (0.1-0)²
    # = 0.01 + 0.01 + 0.81 + 0.09 + 0.49 + 0.01 = 1.42; / 6 = 0.236666…
    assert brier_score(POINTS) == pytest.approx(1.42 / 6)


def test_a_confident_right_answer_scores_near_zero_and_a_confident_wrong_one_near_one() -> None:
    assert brier_score([(1.0, True)]) == 0.0
    assert brier_score([(1.0, False)]) == 1.0
    assert brier_score([(0.5, True), (0.5, False)]) == pytest.approx(0.25)


def test_five_equal_bins_put_edges_in_the_upper_bin_and_one_in_the_last() -> None:
    assert ECE_BINS == 5
    assert [bin_index(c) for c in (0.0, 0.19, 0.2, 0.4, 0.6, 0.8, 0.99, 1.0)] == [
        0,
        0,
        1,
        2,
        3,
        4,
        4,
        4,
    ]


def test_reliability_bins_count_accuracy_and_mean_confidence_per_bin() -> None:
    bins = reliability_bins(POINTS)
    # [0.0,0.2): 0.1 wrong → 1 point, accuracy 0, confidence 0.1
    # [0.2,0.4): 0.3 wrong, 0.3 right → 2 points, accuracy 0.5, confidence 0.3
    # [0.8,1.0]: 0.9 ×3, two right → 3 points, accuracy 2/3, confidence 0.9
    assert [b.count for b in bins] == [1, 2, 0, 0, 3]
    assert [b.accuracy for b in bins] == [0.0, 0.5, None, None, pytest.approx(2 / 3)]
    assert [b.mean_confidence for b in bins] == [
        pytest.approx(0.1),
        pytest.approx(0.3),
        None,
        None,
        pytest.approx(0.9),
    ]
    assert (bins[4].lower, bins[4].upper) == (0.8, 1.0)


def test_ece_weights_each_bins_gap_by_its_share_of_the_points() -> None:
    # 1/6·|0 − 0.1| + 2/6·|0.5 − 0.3| + 3/6·|2/3 − 0.9|
    # = 0.016667 + 0.066667 + 0.116667 = 0.2
    assert expected_calibration_error(POINTS) == pytest.approx(0.2)


def test_always_right_at_ninety_percent_is_ten_points_underconfident() -> None:
    assert expected_calibration_error([(0.9, True)] * 4) == pytest.approx(0.1)
    assert brier_score([(0.9, True)] * 4) == pytest.approx(0.01)


def test_no_points_give_no_score_rather_than_a_perfect_one() -> None:
    assert brier_score([]) is None
    assert expected_calibration_error([]) is None
    assert [b.count for b in reliability_bins([])] == [0] * ECE_BINS


def test_a_confidence_outside_zero_to_one_is_refused() -> None:
    with pytest.raises(ValueError, match="within 0-1"):
        brier_score([(1.2, True)])
