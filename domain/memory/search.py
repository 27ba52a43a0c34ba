"""Finding the past case a new one repeats: the ports it needs and the use case the bot calls."""

from __future__ import annotations

import logging
from typing import Protocol

from domain.case import Case
from domain.engine.documents import problem_of
from domain.errors import NotFoundError
from domain.memory.match import (
    DEFAULT_RULE,
    CaseDocumentHit,
    Eligible,
    MatchRule,
    decide,
    is_eligible,
    rank_cases,
)
from domain.outcomes import Outcome
from domain.past_cases import PastCaseMatch

logger = logging.getLogger(__name__)

CANDIDATES = 5
"""How many past cases, best first, are looked at before the rule decides."""
HITS = 20
"""How many document excerpts are fetched to find those past cases."""


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


def seen_before_query(case: Case) -> str:
    """What a new case is searched by: its problem (and the alert's title, for an alert)."""
    problem = problem_of(case)
    if case.title and case.title.lower() not in problem.lower():
        return f"{problem}\n{case.title}"
    return problem


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
