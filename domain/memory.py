"""Seen before: the finished case of the workspace a new case clearly repeats, if there is one.

A resolved case leaves its report and runbook in the knowledge base, each row marked with the
case it came from. When a new case's problem is confirmed (or an alert opens one), its problem is
searched among those documents; the best document of each past case scores that case. A past case
is offered only when the match is clear (``MatchRule``): it scores at least the threshold and
beats the next past case by the margin. A past case whose root cause was graded wrong (a 👎, a
refuted hypothesis, a fix that named another cause: ``domain/outcomes.py``) is never offered, nor
one that was closed without a fix. The threshold and margin were measured on the evaluation
harness's seen-before set with the bundled embedding model (``evals/seen_before.py``).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Protocol

from pydantic import AwareDatetime, Field

from domain.base import DomainModel
from domain.case import Case
from domain.engine.documents import problem_of
from domain.engine.prompts import fill, load_template
from domain.errors import NotFoundError
from domain.lifecycle.status import CaseStatus
from domain.outcomes import Outcome, Verdict, resolution_summary

logger = logging.getLogger(__name__)

CANDIDATES = 5
"""How many past cases, best first, are looked at before the rule decides."""
HITS = 20
"""How many document excerpts are fetched to find those past cases."""


class CaseDocumentHit(DomainModel):
    """One excerpt of a finished case's report or runbook, found for a new case's problem."""

    case_id: str
    """The finished case the document was written from."""
    title: str
    """The document's title (``Case report: …`` or ``Runbook: …``)."""
    section: str | None = None
    similarity: float = Field(ge=-1.0, le=1.0)
    """Cosine similarity of the excerpt to the new case's problem."""


class CaseDocumentIndex(Protocol):
    """Finished cases' reports and runbooks in the knowledge base, searched by meaning."""

    async def search_case_documents(
        self, *, team_id: str, text: str, limit: int = HITS
    ) -> list[CaseDocumentHit]:
        """The excerpts of this workspace's case documents nearest to ``text``, nearest first."""
        ...


class CaseLookup(Protocol):
    """Reading a case by id (a ``CaseRepository`` is one)."""

    async def get(self, case_id: str) -> Case:
        """The case, or NotFoundError."""
        ...


class OutcomeLookup(Protocol):
    """Reading a finished case's graded outcome (an ``OutcomeRepository`` is one)."""

    async def get(self, case_id: str) -> Outcome | None:
        """The case's outcome, if it was graded."""
        ...


class MatchedDocument(StrEnum):
    """Which of the past case's documents matched."""

    REPORT = "report"
    RUNBOOK = "runbook"


class PastCaseMatch(DomainModel):
    """A finished case the new one clearly looks like: a lead to check, not a conclusion."""

    case_id: str
    short_id: str
    """Human id, e.g. FM-7K3Q."""
    team_id: str
    channel_id: str
    thread_ts: str
    """With ``channel_id``, where its thread is (for the link)."""
    resolved_at: AwareDatetime
    problem: str
    root_cause: str
    fixed_by: str
    """What fixed it: what the resolver said, else the fixes applied, else the mitigations."""
    verdict: Verdict
    """How its root cause was graded: right or unknown (never wrong)."""
    score: float = Field(ge=-1.0, le=1.0)
    """Similarity of its best document to the new case's problem."""
    margin: float | None = None
    """How far it beat the next past case (None when it was the only candidate)."""
    document: MatchedDocument
    document_title: str
    runbook_title: str | None = None
    """Its runbook in the knowledge base, when one was written (for "use this runbook")."""

    @property
    def label(self) -> str:
        """The case as people know it: its short id, else its id."""
        return self.short_id or self.case_id


@dataclass(frozen=True)
class MatchRule:
    """When a past case is offered: close enough, and clearly ahead of the next one."""

    threshold: float = 0.65
    """Least similarity of the best document to the new problem. Measured with the bundled
    all-MiniLM-L6-v2 over the harness's seen-before set: every repeat scored 0.669 or more,
    every new case and trap 0.639 or less (``python -m evals.seen_before`` prints the sweep)."""
    margin: float = 0.05
    """Least lead over the next eligible past case, so two alike past cases are not guessed
    between (no repeat of the set led by less than 0.2)."""
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


def clear_winner(
    candidates: Sequence[Candidate], rule: MatchRule = DEFAULT_RULE
) -> tuple[Candidate, float | None] | None:
    """The best eligible candidate and its lead, when the match is clear; None otherwise."""
    if not candidates or candidates[0].score < rule.threshold:
        return None
    lead = candidates[0].score - candidates[1].score if len(candidates) > 1 else None
    if lead is not None and lead < rule.margin:
        return None
    return candidates[0], lead


def seen_before_query(case: Case) -> str:
    """What a new case is searched by: its problem (and the alert's title, for an alert)."""
    problem = problem_of(case)
    if case.title and case.title.lower() not in problem.lower():
        return f"{problem}\n{case.title}"
    return problem


@dataclass(frozen=True)
class Eligible:
    """A past case that may be offered, with its best excerpt and graded outcome."""

    candidate: Candidate
    case: Case
    outcome: Outcome | None


async def eligible_candidates(
    *,
    case: Case,
    index: CaseDocumentIndex,
    cases: CaseLookup,
    outcomes: OutcomeLookup,
    rule: MatchRule = DEFAULT_RULE,
) -> list[Eligible]:
    """The past cases nearest to this one that may be offered, best first."""
    hits = await index.search_case_documents(team_id=case.team_id, text=seen_before_query(case))
    eligible: list[Eligible] = []
    for candidate in rank_cases(hits, exclude=case.case_id)[:CANDIDATES]:
        past = await _load(cases, candidate.case_id)
        if past is None or past.team_id != case.team_id:
            continue
        outcome = await outcomes.get(past.case_id)
        if is_eligible(past, outcome, rule):
            eligible.append(Eligible(candidate, past, outcome))
    return eligible


def decide(eligible: Sequence[Eligible], rule: MatchRule = DEFAULT_RULE) -> PastCaseMatch | None:
    """The past case to offer, when the rule finds the match clear."""
    winner = clear_winner([item.candidate for item in eligible], rule)
    if winner is None:
        return None
    chosen, lead = winner
    item = next(item for item in eligible if item.candidate is chosen)
    return to_match(item.case, item.outcome, chosen, lead)


async def find_seen_before(
    *,
    case: Case,
    index: CaseDocumentIndex,
    cases: CaseLookup,
    outcomes: OutcomeLookup,
    rule: MatchRule = DEFAULT_RULE,
) -> PastCaseMatch | None:
    """The finished case of the workspace this one clearly repeats, or None.

    Called when a case's problem is confirmed and when an alert opens a case.
    """
    eligible = await eligible_candidates(
        case=case, index=index, cases=cases, outcomes=outcomes, rule=rule
    )
    match = decide(eligible, rule)
    if match is not None:
        logger.info("seen before", extra={"case_id": case.case_id, "past_case_id": match.case_id})
    return match


async def _load(cases: CaseLookup, case_id: str) -> Case | None:
    try:
        return await cases.get(case_id)
    except NotFoundError:
        return None  # its document outlived the case


def to_match(
    past: Case, outcome: Outcome | None, chosen: Candidate, lead: float | None
) -> PastCaseMatch:
    """What is shown of a past case that matched."""
    rc = past.root_cause_conclusion
    runbook = past.documentation.runbook_entry
    matched = MatchedDocument.RUNBOOK if chosen.hit.title == runbook else MatchedDocument.REPORT
    return PastCaseMatch(
        case_id=past.case_id,
        short_id=past.short_id,
        team_id=past.team_id,
        channel_id=past.channel_id,
        thread_ts=past.thread_ts,
        resolved_at=past.resolved_at or past.closed_at or past.updated_at,
        problem=problem_of(past),
        root_cause=rc.root_cause if rc else "",
        fixed_by=fixed_by(past),
        verdict=outcome.verdict if outcome else Verdict.UNKNOWN,
        score=round(chosen.score, 4),
        margin=round(lead, 4) if lead is not None else None,
        document=matched,
        document_title=chosen.hit.title,
        runbook_title=runbook,
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


SEEN_BEFORE_TEMPLATE = "seen_before"


def seen_before_note(match: PastCaseMatch) -> str:
    """What the model is told of a past case that matched: a lead to test, not a conclusion.

    The turn passes it in ``PromptContext.notes`` while the match stands.
    """
    values = {
        "past_case": match.label,
        "resolved": match.resolved_at.date().isoformat(),
        "score": f"{match.score:.2f}",
        "document": match.document.value,
        "problem": match.problem,
        "root_cause": match.root_cause or "not stated",
        "fixed_by": match.fixed_by,
    }
    return fill(load_template(SEEN_BEFORE_TEMPLATE), values)
