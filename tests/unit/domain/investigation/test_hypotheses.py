"""Hypothesis-evidence links, refutation confirmations, conclusions and the confidence rubric."""

from __future__ import annotations

import pytest

from domain.investigation.conclusions import ConfidenceLevel, RootCauseConclusion, rubric_band
from domain.investigation.evidence import EvidenceStance
from domain.investigation.hypotheses import (
    Hypothesis,
    HypothesisCategory,
    HypothesisStatus,
    conclude,
    contradiction_confidence,
    link_evidence,
    needs_refutation_confirmation,
)
from tests.unit.domain.builders import NOW


def _hypothesis(status=HypothesisStatus.ACTIVE) -> Hypothesis:
    return Hypothesis(
        statement="connection pool exhausted",
        category=HypothesisCategory.CONFIG,
        status=status,
        likelihood=0.6,
        generated_at_turn=1,
    )


def _link(h, stance, completeness=0.9):
    return link_evidence(
        h, evidence_id="ev_1", stance=stance, reasoning="r", completeness=completeness, now=NOW
    )


def test_irrelevant_evidence_creates_no_link():
    h = _hypothesis()
    assert _link(h, EvidenceStance.IRRELEVANT) is None
    assert h.evidence_links == {}


def test_weak_neutral_evidence_creates_no_link():
    h = _hypothesis()
    assert _link(h, EvidenceStance.NEUTRAL, completeness=0.29) is None
    assert _link(h, EvidenceStance.NEUTRAL, completeness=0.3) is not None
    assert h.supporting_evidence == h.refuting_evidence == []


def test_supporting_and_contradicting_links_are_listed_once():
    h = _hypothesis()
    _link(h, EvidenceStance.SUPPORTS)
    _link(h, EvidenceStance.STRONGLY_SUPPORTS)
    assert h.supporting_evidence == ["ev_1"]
    _link(h, EvidenceStance.CONTRADICTS)
    _link(h, EvidenceStance.STRONGLY_CONTRADICTS)
    assert h.refuting_evidence == ["ev_1"]
    assert h.tested_at == NOW


@pytest.mark.parametrize(
    ("stance", "completeness", "needed"),
    [
        (EvidenceStance.STRONGLY_CONTRADICTS, 0.1, True),
        (EvidenceStance.CONTRADICTS, 0.71, True),
        (EvidenceStance.CONTRADICTS, 0.7, False),
        (EvidenceStance.SUPPORTS, 1.0, False),
    ],
)
def test_contradiction_above_point_seven_needs_a_person_to_confirm(stance, completeness, needed):
    h = _hypothesis()
    link = _link(h, stance, completeness)
    assert link is not None
    assert needs_refutation_confirmation(h, link) is needed


def test_concluded_hypotheses_need_no_refutation_confirmation():
    h = _hypothesis(status=HypothesisStatus.REFUTED)
    link = _link(h, EvidenceStance.STRONGLY_CONTRADICTS)
    assert link is not None
    assert not needs_refutation_confirmation(h, link)
    assert contradiction_confidence(link) > 0.7


def test_conclude_accepts_only_concluded_statuses():
    h = _hypothesis()
    conclude(h, HypothesisStatus.VALIDATED, now=NOW)
    assert (h.status, h.concluded_at) == (HypothesisStatus.VALIDATED, NOW)
    with pytest.raises(ValueError, match="not a concluded"):
        conclude(h, HypothesisStatus.ACTIVE, now=NOW)


@pytest.mark.parametrize(
    ("score", "level"),
    [
        (0.0, ConfidenceLevel.SPECULATION),
        (0.49, ConfidenceLevel.SPECULATION),
        (0.5, ConfidenceLevel.PROBABLE),
        (0.69, ConfidenceLevel.PROBABLE),
        (0.7, ConfidenceLevel.CONFIDENT),
        (0.89, ConfidenceLevel.CONFIDENT),
        (0.9, ConfidenceLevel.VERIFIED),
        (1.0, ConfidenceLevel.VERIFIED),
    ],
)
def test_confidence_level_is_derived_from_the_score(score, level):
    conclusion = RootCauseConclusion(root_cause="leak", confidence_score=score, mechanism="m")
    assert conclusion.confidence_level is level


@pytest.mark.parametrize(
    ("score", "words"),
    [
        (0.95, "Direct evidence"),
        (0.75, "minor gaps"),
        (0.5, "notable gaps"),
        (0.3, "Speculative"),
        (0.1, "guess"),
    ],
)
def test_the_confidence_rubric_has_five_bands(score, words):
    assert words in rubric_band(score)


def test_the_rubric_rejects_scores_outside_zero_to_one():
    with pytest.raises(ValueError, match="within"):
        rubric_band(1.2)
