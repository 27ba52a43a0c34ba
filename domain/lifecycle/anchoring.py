"""Anchoring detectors: stuck on one kind of hypothesis, or on one kind of evidence."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from domain.case import Case
from domain.investigation.evidence import Evidence, EvidenceCategory
from domain.investigation.hypotheses import Hypothesis, HypothesisStatus
from domain.investigation.turns import TurnProgress

CATEGORY_ANCHORING_LIMIT = 4
EVIDENCE_WINDOW_TURNS = 4
EVIDENCE_ANCHORING_LIMIT = 4
_UNPRODUCTIVE = frozenset({HypothesisStatus.REFUTED, HypothesisStatus.INCONCLUSIVE})


def detect_category_anchoring(hypotheses: Sequence[Hypothesis]) -> str | None:
    """Four or more refuted/inconclusive hypotheses in one category: try another category."""
    counts = Counter(h.category for h in hypotheses if h.status in _UNPRODUCTIVE)
    for category, count in counts.most_common():
        if count >= CATEGORY_ANCHORING_LIMIT:
            return (
                f"Tested {count} '{category.value}' hypotheses without validation. "
                "Try a different category."
            )
    return None


def detect_evidence_anchoring(
    turn_history: Sequence[TurnProgress], evidence: Sequence[Evidence]
) -> str | None:
    """Four or more pieces of symptom evidence, and nothing else, in the last four turns."""
    recent_ids = {
        evidence_id
        for turn in turn_history[-EVIDENCE_WINDOW_TURNS:]
        for evidence_id in turn.evidence_added
    }
    if len(recent_ids) < EVIDENCE_ANCHORING_LIMIT:
        return None
    categories = {e.category for e in evidence if e.evidence_id in recent_ids}
    if categories == {EvidenceCategory.SYMPTOM_EVIDENCE}:
        return (
            f"Collected symptom evidence {len(recent_ids)} times in a row. "
            "Move on to root-cause investigation."
        )
    return None


def anchoring_warnings(case: Case) -> list[str]:
    """Both detectors' warnings for the prompt, if any fire."""
    found = (
        detect_category_anchoring(list(case.hypotheses.values())),
        detect_evidence_anchoring(case.turn_history, case.evidence),
    )
    return [warning for warning in found if warning]
