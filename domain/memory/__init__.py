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

from domain.memory.match import (
    DEFAULT_RULE,
    Candidate,
    CaseDocumentHit,
    Eligible,
    MatchRule,
    decide,
    fixed_by,
    is_eligible,
    rank_cases,
    runbook_of,
    same_cause,
)
from domain.memory.note import seen_before_note, seen_before_notes
from domain.memory.search import (
    CaseDocumentIndex,
    CaseLookup,
    OutcomeLookup,
    eligible_candidates,
    find_seen_before,
    seen_before_query,
)
from domain.past_cases import MatchedDocument, PastCaseMatch, SeenBefore

__all__ = [
    "DEFAULT_RULE",
    "Candidate",
    "CaseDocumentHit",
    "CaseDocumentIndex",
    "CaseLookup",
    "Eligible",
    "MatchRule",
    "MatchedDocument",
    "OutcomeLookup",
    "PastCaseMatch",
    "SeenBefore",
    "decide",
    "eligible_candidates",
    "find_seen_before",
    "fixed_by",
    "is_eligible",
    "rank_cases",
    "runbook_of",
    "same_cause",
    "seen_before_note",
    "seen_before_notes",
    "seen_before_query",
]
