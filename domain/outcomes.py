"""Feedback on stated root causes and the outcome of each finished case: were they right?

An outcome grades a case's final root-cause conclusion once a person resolved the case. The rule,
first match wins:

1. closed without a fix → no outcome; resolved with no root cause stated → no outcome;
2. anyone's 👎 on the final root cause → wrong;
3. the hypothesis the root cause validated was later refuted by a person → wrong;
4. a 👍 (and no 👎) → right;
5. the person who resolved it described the fix: right when the description shares a distinctive
   word with the root cause or its mechanism, wrong when it shares none (it names another cause);
6. resolved by verifying a fix while the root cause's hypothesis stood validated → right;
7. otherwise → unknown.

Only right and wrong outcomes are calibration points.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

from pydantic import AwareDatetime, Field

from domain.base import DomainModel
from domain.calibration import Bin, brier_score, expected_calibration_error, reliability_bins
from domain.case import Case
from domain.investigation.conclusions import RootCauseConclusion
from domain.investigation.hypotheses import HypothesisStatus
from domain.lifecycle.confirmations import StatusChangePayload
from domain.lifecycle.status import CaseStatus
from domain.llm import LLMCallOutcome, LLMCallRecord
from domain.past_cases import Verdict as Verdict  # re-exported: graded outcomes name it

ANSWERED = frozenset({LLMCallOutcome.OK, LLMCallOutcome.REPAIRED})
MIN_POINTS = 10
"""Below this many graded outcomes, Brier and ECE are noise and are not shown."""
UNKNOWN_MODEL = "unknown model"
STEM = 5
"""Words are compared by their first letters, so "exhausted" meets "exhaustion"."""
GENERIC_WORDS = frozenset(
    {
        "about", "after", "again", "also", "back", "because", "been", "before", "being", "both",
        "came", "cause", "caused", "causes", "change", "changed", "come", "comes", "could",
        "does", "down", "during", "each", "error", "errors", "even", "ever", "every", "fixed",
        "from", "have", "here", "into", "issue", "issues", "just", "like", "made", "make", "many",
        "more", "most", "much", "must", "never", "none", "only", "other", "over", "problem",
        "problems", "request", "requests", "resolved", "restart", "restarted", "same", "server",
        "service", "services", "should", "since", "some", "still", "such", "than", "that",
        "their", "them", "then", "there", "these", "they", "this", "those", "through", "under",
        "until", "very", "were", "what", "when", "where", "which", "while", "will", "with",
        "would",
    }
)  # fmt: skip
"""Words that name no cause: sharing one says nothing about agreement."""


class Rating(StrEnum):
    """A person's 👍 or 👎 on a stated root cause."""

    UP = "up"
    DOWN = "down"


class ConclusionFeedback(DomainModel):
    """One person's latest rating of one root-cause conclusion of a case."""

    team_id: str
    case_id: str
    conclusion_id: str
    user_id: str
    rating: Rating
    confidence: float = Field(ge=0.0, le=1.0)
    """The confidence the conclusion stated when it was rated."""
    model: str | None = None
    """The model that stated it (None when no call record names one)."""
    at: AwareDatetime


class Outcome(DomainModel):
    """The graded root cause of one finished case (one per case; re-graded on new feedback)."""

    team_id: str
    case_id: str
    conclusion_id: str | None = None
    confidence: float | None = Field(default=None, ge=0.0, le=1.0)
    model: str | None = None
    verdict: Verdict
    reason: str
    """Which rule decided, in words."""
    finished_at: AwareDatetime
    """When the case was resolved or closed (outcomes are listed in this order)."""
    recorded_at: AwareDatetime
    """When it was last graded (feedback after the resolution grades it again)."""

    @property
    def point(self) -> tuple[float, bool] | None:
        """(stated confidence, right) for calibration; None unless graded right or wrong."""
        if self.confidence is None or self.verdict not in (Verdict.RIGHT, Verdict.WRONG):
            return None
        return self.confidence, self.verdict is Verdict.RIGHT


def conclusion_id(root_cause: str, confidence: float) -> str:
    """A stable id for a stated root cause: the same statement at the same confidence."""
    digest = hashlib.sha256(f"{confidence:.3f}\n{root_cause.strip()}".encode()).hexdigest()
    return f"rc_{digest[:12]}"


def id_of(conclusion: RootCauseConclusion) -> str:
    """The id of a case's root-cause conclusion."""
    return conclusion_id(conclusion.root_cause, conclusion.confidence_score)


def model_of(records: Sequence[LLMCallRecord], conclusion: RootCauseConclusion) -> str | None:
    """The model that stated a conclusion: the last answered call before it was determined."""
    answered = [r for r in records if r.outcome in ANSWERED]
    before = [r for r in answered if r.at <= conclusion.determined_at]
    chosen = max(before or answered, key=lambda r: r.at, default=None)
    return chosen.model if chosen else None


def grade(
    case: Case,
    feedback: Sequence[ConclusionFeedback],
    *,
    model: str | None,
    now: datetime,
) -> Outcome:
    """The outcome of a finished case, by the module's rule."""
    verdict, reason = judge(case, feedback)
    rc = case.root_cause_conclusion
    return Outcome(
        team_id=case.team_id,
        case_id=case.case_id,
        conclusion_id=id_of(rc) if rc else None,
        confidence=rc.confidence_score if rc else None,
        model=model if rc else None,
        verdict=verdict,
        reason=reason,
        finished_at=case.closed_at or now,
        recorded_at=now,
    )


def judge(case: Case, feedback: Sequence[ConclusionFeedback]) -> tuple[Verdict, str]:
    """The verdict on a finished case's final root cause, and why (see the module's rule)."""
    rc = case.root_cause_conclusion
    if case.status is not CaseStatus.RESOLVED:
        return Verdict.NO_OUTCOME, "not resolved (closed without a fix, or still open)"
    if rc is None:
        return Verdict.NO_OUTCOME, "resolved with no root cause stated"
    ratings = {f.rating for f in feedback if f.conclusion_id == id_of(rc)}
    if Rating.DOWN in ratings:
        return Verdict.WRONG, "a person gave it 👎"
    if _hypothesis_status(case, rc) is HypothesisStatus.REFUTED:
        return Verdict.WRONG, "a person refuted the hypothesis it validated"
    if Rating.UP in ratings:
        return Verdict.RIGHT, "a person gave it 👍"
    return _by_resolution(case, rc)


def _by_resolution(case: Case, rc: RootCauseConclusion) -> tuple[Verdict, str]:
    summary = resolution_summary(case)
    if summary:
        if _words(summary) & _words(f"{rc.root_cause} {rc.mechanism}"):
            return Verdict.RIGHT, "the fix described on resolution names the root cause"
        return Verdict.WRONG, "the fix described on resolution names another cause"
    verified = any(s.verified_by for s in case.solutions)
    if verified and _hypothesis_status(case, rc) is HypothesisStatus.VALIDATED:
        return Verdict.RIGHT, "a fix was verified while its hypothesis stood validated"
    return Verdict.UNKNOWN, "nobody confirmed or contradicted it"


def resolution_summary(case: Case) -> str | None:
    """What the person who resolved the case said fixed it, if they said."""
    for change in reversed(case.status_history):
        if change.to_status is not CaseStatus.RESOLVED:
            continue
        confirmation = case.find_confirmation(change.confirmation_id)
        payload = confirmation.payload if confirmation else None
        if isinstance(payload, StatusChangePayload) and payload.resolution_summary:
            return payload.resolution_summary
        return None
    return None


def _hypothesis_status(case: Case, rc: RootCauseConclusion) -> HypothesisStatus | None:
    hypothesis = case.hypotheses.get(rc.validated_hypothesis_id or "")
    return hypothesis.status if hypothesis else None


def _words(text: str) -> set[str]:
    """Distinctive words, by their stem: four letters or more, generic ones left out."""
    found = re.findall(r"[a-z0-9][a-z0-9_.-]*[a-z0-9]", text.lower())
    return {w[:STEM] for w in found if len(w) >= 4 and w not in GENERIC_WORDS}


@dataclass(frozen=True)
class ModelLine:
    """How often one model's graded root causes were right."""

    model: str
    graded: int
    right: int


@dataclass(frozen=True)
class CalibrationSummary:
    """Counts and hit rates of recent outcomes per confidence bin and per model."""

    verdicts: dict[Verdict, int]
    bins: list[Bin]
    models: list[ModelLine]
    brier: float | None
    """None below MIN_POINTS graded outcomes."""
    ece: float | None

    @property
    def considered(self) -> int:
        """Outcomes looked at (graded or not)."""
        return sum(self.verdicts.values())

    @property
    def graded(self) -> int:
        """Outcomes that were right or wrong (the calibration points)."""
        return self.verdicts[Verdict.RIGHT] + self.verdicts[Verdict.WRONG]

    @property
    def enough(self) -> bool:
        """Whether there are enough graded outcomes for the numbers to mean something."""
        return self.graded >= MIN_POINTS


def summarize(outcomes: Sequence[Outcome]) -> CalibrationSummary:
    """Bins, per-model hit rates, and Brier and ECE when there are enough points."""
    points: list[tuple[float, bool]] = []
    per_model: dict[str, list[bool]] = {}
    for outcome in outcomes:
        point = outcome.point
        if point is not None:
            points.append(point)
            per_model.setdefault(outcome.model or UNKNOWN_MODEL, []).append(point[1])
    counted = Counter(o.verdict for o in outcomes)
    enough = len(points) >= MIN_POINTS
    return CalibrationSummary(
        verdicts={v: counted.get(v, 0) for v in Verdict},
        bins=reliability_bins(points),
        models=[ModelLine(m, len(r), sum(r)) for m, r in sorted(per_model.items())],
        brier=brier_score(points) if enough else None,
        ece=expected_calibration_error(points) if enough else None,
    )
