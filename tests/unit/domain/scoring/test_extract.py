"""The total is the integer on the judge's last line; category points come from its breakdown."""

from __future__ import annotations

import pytest

from domain.scoring.extract import (
    ExtractionProblem,
    ScoreExtractionError,
    category_scores,
    extract_score,
)
from domain.scoring.model import Category

BREAKDOWN = """The investigation jumped to the release without checking pool metrics.
Logical Flow: 15/25
Consistency: 18/25
Tool Relevance: 12/25
Synthesis Quality: 14/25"""


def test_the_total_is_the_number_on_the_last_line_and_the_rest_is_the_analysis() -> None:
    extracted = extract_score(f"{BREAKDOWN}\n59")

    assert extracted.total == 59
    assert extracted.analysis == BREAKDOWN


@pytest.mark.parametrize(
    "last_line",
    ["59   ", "59\t \n\n  \n", "**59**", "Total: 59", "Total score = 59", "59/100", "59."],
)
def test_trailing_spaces_blank_lines_and_light_dressing_still_read(last_line: str) -> None:
    assert extract_score(f"{BREAKDOWN}\n{last_line}").total == 59


@pytest.mark.parametrize("total", [0, 100])
def test_the_ends_of_the_range_are_accepted(total: int) -> None:
    assert extract_score(f"analysis\n{total}").total == total


@pytest.mark.parametrize("total", ["101", "150", "1000"])
def test_a_total_out_of_range_is_refused(total: str) -> None:
    with pytest.raises(ScoreExtractionError) as raised:
        extract_score(f"analysis\n{total}")

    assert raised.value.problem is ExtractionProblem.OUT_OF_RANGE


@pytest.mark.parametrize(
    "reply",
    [
        "A thorough review with no score at all.",
        "The total is high.\nThanks for reading",
        "Analysis\nTotal: -5",
        BREAKDOWN,  # the breakdown's "14/25" is not a total
    ],
)
def test_a_reply_without_a_total_on_its_last_line_is_refused(reply: str) -> None:
    with pytest.raises(ScoreExtractionError) as raised:
        extract_score(reply)

    assert raised.value.problem is ExtractionProblem.NO_NUMBER


def test_a_number_only_in_the_middle_does_not_count() -> None:
    reply = "I would put this at 62 overall.\nThe gaps are explained above.\n"

    with pytest.raises(ScoreExtractionError) as raised:
        extract_score(reply)

    assert raised.value.problem is ExtractionProblem.NO_NUMBER


def test_a_number_followed_by_words_on_the_last_line_does_not_count() -> None:
    with pytest.raises(ScoreExtractionError):
        extract_score("analysis\n62 points overall")


@pytest.mark.parametrize("reply", ["", "   \n\t\n"])
def test_an_empty_reply_is_refused(reply: str) -> None:
    with pytest.raises(ScoreExtractionError) as raised:
        extract_score(reply)

    assert raised.value.problem is ExtractionProblem.EMPTY


def test_the_four_category_scores_are_read_from_the_breakdown() -> None:
    assert extract_score(f"{BREAKDOWN}\n59").categories == {
        Category.LOGICAL_FLOW: 15,
        Category.CONSISTENCY: 18,
        Category.TOOL_RELEVANCE: 12,
        Category.SYNTHESIS_QUALITY: 14,
    }


def test_the_last_mention_of_a_category_counts_and_impossible_points_do_not() -> None:
    text = (
        "Earlier I thought Logical Flow: 20/25 but no.\n"
        "**Logical flow**: 11/25\nConsistency - 30/25\nsynthesis_quality: 9 / 25"
    )

    assert category_scores(text) == {
        Category.LOGICAL_FLOW: 11,
        Category.CONSISTENCY: None,
        Category.TOOL_RELEVANCE: None,
        Category.SYNTHESIS_QUALITY: 9,
    }
