"""Hypotheses, their evidence links, and which contradictions need a person's confirmation."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum

from pydantic import AwareDatetime, Field

from domain.base import DomainModel, new_id
from domain.investigation.evidence import CONTRADICTING_STANCES, SUPPORTING_STANCES, EvidenceStance

NEUTRAL_LINK_MIN_COMPLETENESS = 0.3
REFUTATION_CONFIDENCE = 0.7


class HypothesisCategory(StrEnum):
    """Where the cause may lie; used to detect anchoring on one kind of explanation."""

    CODE = "code"
    CONFIG = "config"
    ENVIRONMENT = "environment"
    NETWORK = "network"
    DATA = "data"
    HARDWARE = "hardware"
    EXTERNAL = "external"
    HUMAN = "human"
    OTHER = "other"


class HypothesisStatus(StrEnum):
    """Lifecycle of a hypothesis."""

    CAPTURED = "captured"
    ACTIVE = "active"
    VALIDATED = "validated"
    REFUTED = "refuted"
    INCONCLUSIVE = "inconclusive"
    RETIRED = "retired"


UNDER_TEST = frozenset({HypothesisStatus.CAPTURED, HypothesisStatus.ACTIVE})
CONCLUDED = frozenset(
    {
        HypothesisStatus.VALIDATED,
        HypothesisStatus.REFUTED,
        HypothesisStatus.INCONCLUSIVE,
        HypothesisStatus.RETIRED,
    }
)


class HypothesisGenerationMode(StrEnum):
    """How the hypothesis came about."""

    OPPORTUNISTIC = "opportunistic"
    SYSTEMATIC = "systematic"
    FORCED_ALTERNATIVE = "forced_alternative"


class EvidenceRequirement(DomainModel):
    """Evidence needed to test a hypothesis."""

    description: str
    evidence_type: str
    """log_file | metrics | config | code | trace | ..."""
    acquisition_guidance: str | None = None
    criticality: str = "required"
    """required | preferred | optional."""


class HypothesisEvidenceLink(DomainModel):
    """How one piece of evidence bears on one hypothesis."""

    hypothesis_id: str
    evidence_id: str
    stance: EvidenceStance
    reasoning: str
    completeness: float = Field(ge=0.0, le=1.0)
    """How well this evidence tests this hypothesis."""
    analyzed_at: AwareDatetime


class Hypothesis(DomainModel):
    """A candidate explanation tested against evidence."""

    hypothesis_id: str = Field(default_factory=lambda: new_id("hyp"))
    statement: str
    category: HypothesisCategory
    status: HypothesisStatus = HypothesisStatus.ACTIVE
    likelihood: float = Field(ge=0.0, le=1.0)
    evidence_requirements: list[EvidenceRequirement] = Field(default_factory=list)
    supporting_evidence: list[str] = Field(default_factory=list)
    refuting_evidence: list[str] = Field(default_factory=list)
    evidence_links: dict[str, HypothesisEvidenceLink] = Field(default_factory=dict)
    generated_at_turn: int = Field(ge=0)
    generation_mode: HypothesisGenerationMode = HypothesisGenerationMode.OPPORTUNISTIC
    rationale: str = ""
    tested_at: AwareDatetime | None = None
    concluded_at: AwareDatetime | None = None


def link_evidence(
    hypothesis: Hypothesis,
    *,
    evidence_id: str,
    stance: EvidenceStance,
    reasoning: str,
    completeness: float,
    now: datetime,
) -> HypothesisEvidenceLink | None:
    """Record a link unless it has no investigative value (irrelevant, or weak neutral)."""
    if stance is EvidenceStance.IRRELEVANT:
        return None
    if stance is EvidenceStance.NEUTRAL and completeness < NEUTRAL_LINK_MIN_COMPLETENESS:
        return None
    link = HypothesisEvidenceLink(
        hypothesis_id=hypothesis.hypothesis_id,
        evidence_id=evidence_id,
        stance=stance,
        reasoning=reasoning,
        completeness=completeness,
        analyzed_at=now,
    )
    hypothesis.evidence_links[evidence_id] = link
    hypothesis.tested_at = now
    if stance in SUPPORTING_STANCES and evidence_id not in hypothesis.supporting_evidence:
        hypothesis.supporting_evidence.append(evidence_id)
    if stance in CONTRADICTING_STANCES and evidence_id not in hypothesis.refuting_evidence:
        hypothesis.refuting_evidence.append(evidence_id)
    return link


def contradiction_confidence(link: HypothesisEvidenceLink) -> float:
    """Confidence of a contradiction: strong stances count fully, weaker ones by completeness."""
    if link.stance is EvidenceStance.STRONGLY_CONTRADICTS:
        return max(link.completeness, REFUTATION_CONFIDENCE + 0.01)
    if link.stance is EvidenceStance.CONTRADICTS:
        return link.completeness
    return 0.0


def needs_refutation_confirmation(hypothesis: Hypothesis, link: HypothesisEvidenceLink) -> bool:
    """A hypothesis under test, contradicted with confidence above 0.7, needs a person's word."""
    return (
        hypothesis.status in UNDER_TEST and contradiction_confidence(link) > REFUTATION_CONFIDENCE
    )


def conclude(hypothesis: Hypothesis, status: HypothesisStatus, *, now: datetime) -> None:
    """Move a hypothesis to a concluded status."""
    if status not in CONCLUDED:
        raise ValueError(f"{status} is not a concluded status")
    hypothesis.status = status
    hypothesis.concluded_at = now
