"""The seen-before rule: which past case, if any, a new case clearly repeats."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from pydantic import Field

from domain.base import DomainModel
from domain.case import Case
from domain.engine.documents import problem_of
from domain.lifecycle.status import CaseStatus
from domain.outcomes import GENERIC_WORDS, STEM, Outcome, resolution_summary
from domain.past_cases import MatchedDocument, PastCaseMatch, Verdict

SAME_CAUSE_SHARE = 0.5
"""Two root causes are the same when they share this share of the shorter one's distinctive
words (compared by their first letters, as calibration compares a fix with a root cause)."""
_COMMON = frozenset({"root", "cause", "with", "from", "into", "than"})


class CaseDocumentHit(DomainModel):
    """One excerpt of a finished case's report or runbook, found for a new case's problem."""

    case_id: str
    """The finished case the document was written from."""
    title: str
    """The document's title (``Case report: …`` or ``Runbook: …``)."""
    section: str | None = None
    similarity: float = Field(ge=-1.0, le=1.0)
    """Cosine similarity of the excerpt to the new case's problem."""


@dataclass(frozen=True)
class MatchRule:
    """When a past case is offered: close enough, and clearly ahead of the next one."""

    threshold: float = 0.65
    """Least similarity of the best document to the new problem. Measured with the bundled
    all-MiniLM-L6-v2 over the harness's seen-before set: every repeat scored 0.669 or more,
    every new case and trap 0.639 or less (``python -m evals.seen_before`` prints the sweep)."""
    margin: float = 0.05
    """Least lead over the next eligible past case of another root cause, so two past cases
    alike are not guessed between; past cases of the same root cause this close are one incident
    that recurred (without it, the set's recurring incident offered its older case)."""
    excluded: frozenset[Verdict] = frozenset({Verdict.WRONG})
    """Graded verdicts that rule a past case out."""


DEFAULT_RULE = MatchRule()


@dataclass(frozen=True)
class Candidate:
    """A past case with the best of its document excerpts."""

    case_id: str
    score: float
    hit: CaseDocumentHit


def rank_cases(hits: Sequence[CaseDocumentHit], *, exclude: str = "") -> list[Candidate]:
    """One candidate per past case (its best excerpt), best first; ``exclude`` left out."""
    best: dict[str, CaseDocumentHit] = {}
    for hit in hits:
        if hit.case_id == exclude:
            continue
        kept = best.get(hit.case_id)
        if kept is None or hit.similarity > kept.similarity:
            best[hit.case_id] = hit
    ordered = sorted(best.values(), key=lambda h: (-h.similarity, h.case_id))
    return [Candidate(h.case_id, h.similarity, h) for h in ordered]


def is_eligible(case: Case, outcome: Outcome | None, rule: MatchRule = DEFAULT_RULE) -> bool:
    """Whether a past case may be offered: resolved with a root cause, and not graded wrong."""
    if case.status is not CaseStatus.RESOLVED or case.root_cause_conclusion is None:
        return False
    return outcome is None or outcome.verdict not in rule.excluded


def same_cause(one: Case, two: Case) -> bool:
    """Whether two finished cases name the same root cause: most distinctive words shared."""
    first, second = (_stems(case) for case in (one, two))
    if not first or not second:
        return False
    return len(first & second) >= SAME_CAUSE_SHARE * min(len(first), len(second))


def _stems(case: Case) -> set[str]:
    rc = case.root_cause_conclusion
    words = re.findall(r"[a-z0-9][a-z0-9_.-]*[a-z0-9]", rc.root_cause.lower()) if rc else []
    return {w[:STEM] for w in words if len(w) >= 4 and w not in GENERIC_WORDS | _COMMON}


@dataclass(frozen=True)
class Eligible:
    """A past case that may be offered, with its best excerpt and graded outcome."""

    candidate: Candidate
    case: Case
    outcome: Outcome | None


def decide(eligible: Sequence[Eligible], rule: MatchRule = DEFAULT_RULE) -> PastCaseMatch | None:
    """The past case to offer, when the rule finds the match clear.

    Past cases within the margin of the best one make it unclear, unless they name the same root
    cause: then the incident recurred, and the newest of them is offered, naming the others.
    """
    if not eligible or eligible[0].candidate.score < rule.threshold:
        return None
    best = eligible[0].candidate.score
    alike = [eligible[0], *(e for e in eligible[1:] if best - e.candidate.score < rule.margin)]
    if not all(same_cause(eligible[0].case, item.case) for item in alike[1:]):
        return None
    rest = eligible[len(alike) :]
    lead = best - rest[0].candidate.score if rest else None
    chosen = max(alike, key=lambda item: _finished(item.case))
    earlier = [item.case.short_id or item.case.case_id for item in alike if item is not chosen]
    return to_match(chosen, lead, earlier)


def _finished(case: Case) -> datetime:
    return case.resolved_at or case.closed_at or case.updated_at


def to_match(chosen: Eligible, lead: float | None, earlier: list[str]) -> PastCaseMatch:
    """What is shown of a past case that matched."""
    past, hit = chosen.case, chosen.candidate.hit
    rc = past.root_cause_conclusion
    runbook = past.documentation.runbook_entry
    return PastCaseMatch(
        case_id=past.case_id,
        short_id=past.short_id,
        team_id=past.team_id,
        channel_id=past.channel_id,
        thread_ts=past.thread_ts,
        resolved_at=_finished(past),
        problem=problem_of(past),
        root_cause=rc.root_cause if rc else "",
        fixed_by=fixed_by(past),
        verdict=chosen.outcome.verdict if chosen.outcome else Verdict.UNKNOWN,
        score=round(chosen.candidate.score, 4),
        margin=round(lead, 4) if lead is not None else None,
        document=MatchedDocument.RUNBOOK if hit.title == runbook else MatchedDocument.REPORT,
        document_title=hit.title,
        runbook_title=runbook,
        also_seen=earlier,
    )


def fixed_by(case: Case) -> str:
    """What fixed a finished case, in one line."""
    said = resolution_summary(case)
    if said:
        return said
    applied = [s for s in case.solutions if s.applied_at is not None]
    fixes = [s.title for s in applied if not s.is_mitigation] or [s.title for s in applied]
    return "; ".join(fixes) if fixes else "not recorded"


def runbook_of(case: Case) -> str | None:
    """The runbook a finished case wrote (what "use this runbook" posts), if it wrote one."""
    return case.documentation.artifacts.runbook_generated
