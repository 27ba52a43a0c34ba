"""Reading the judge's reply: the total on the last line, and the four category scores.

The contract (the seed's number-on-the-last-line pattern) is strict about where the total is and
tolerant about how it is dressed: ``72``, ``**72**``, ``Total: 72`` and ``72/100`` on the last line
all read as 72; a number anywhere else does not count.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from enum import StrEnum

from domain.errors import DomainError
from domain.scoring.model import CATEGORY_MAX, Category

MAX_TOTAL = 100
_DRESSING = "*_`#>~ \t"
_LAST_LINE = re.compile(r"(?:[A-Za-z][A-Za-z ]*[:=]?\s*)?(\d+)(?:\s*/\s*100)?\.?")
_CATEGORY_LABELS = {
    Category.LOGICAL_FLOW: r"logical[\s_-]*flow",
    Category.CONSISTENCY: r"consistency",
    Category.TOOL_RELEVANCE: r"tool[\s_-]*relevance",
    Category.SYNTHESIS_QUALITY: r"synthesis[\s_-]*quality",
}


class ExtractionProblem(StrEnum):
    """Why no total could be read."""

    EMPTY = "empty"
    NO_NUMBER = "no_number"
    OUT_OF_RANGE = "out_of_range"


class ScoreExtractionError(DomainError):
    """The judge's reply does not end with a total from 0 to 100."""

    def __init__(self, problem: ExtractionProblem, detail: str) -> None:
        super().__init__(detail)
        self.problem = problem


@dataclass(frozen=True)
class ExtractedScore:
    """The total, the analysis (the reply without its last line) and the category scores."""

    total: int
    analysis: str
    categories: dict[Category, int | None] = field(default_factory=dict)


def extract_score(reply: str) -> ExtractedScore:
    """The total from the reply's last non-blank line (ScoreExtractionError if there is none)."""
    lines = reply.rstrip().splitlines()
    if not lines:
        raise ScoreExtractionError(ExtractionProblem.EMPTY, "the reply is empty")
    last = lines[-1].strip().strip(_DRESSING)
    match = _LAST_LINE.fullmatch(last)
    if match is None:
        raise ScoreExtractionError(
            ExtractionProblem.NO_NUMBER, "the last line is not a total score"
        )
    total = int(match.group(1))
    if total > MAX_TOTAL:
        raise ScoreExtractionError(
            ExtractionProblem.OUT_OF_RANGE, f"the total {total} is above {MAX_TOTAL}"
        )
    analysis = "\n".join(lines[:-1]).strip()
    return ExtractedScore(total, analysis, category_scores(analysis))


def category_scores(analysis: str) -> dict[Category, int | None]:
    """Each category's points from the breakdown ("Logical Flow: 15/25"); None where unreadable."""
    found: dict[Category, int | None] = {}
    for category, label in _CATEGORY_LABELS.items():
        pattern = rf"(?i){label}\W{{0,6}}(\d{{1,2}})\s*/\s*{CATEGORY_MAX}"
        matches = re.findall(pattern, analysis)
        # The breakdown comes after the discussion: the last mention is the one that counts.
        points = int(matches[-1]) if matches else None
        found[category] = points if points is not None and points <= CATEGORY_MAX else None
    return found
