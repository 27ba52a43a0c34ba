"""Applying hypotheses: new ones, updates, evidence links, and refutations a person must confirm."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from domain.engine.context import TurnContext
from domain.engine.schemas import HypothesisEvidenceLinkToAdd, HypothesisToAdd, HypothesisUpdate
from domain.investigation.evidence import CONTRADICTING_STANCES
from domain.investigation.hypotheses import (
    CONCLUDED,
    EvidenceRequirement,
    Hypothesis,
    HypothesisStatus,
    conclude,
    link_evidence,
    needs_refutation_confirmation,
)
from domain.lifecycle.confirmations import RefutationPayload


@dataclass
class Refutations:
    """Contradictions waiting to be put to the people: evidence id → hypotheses and reasons."""

    by_evidence: dict[str, list[str]] = field(default_factory=dict)
    reasons: dict[str, list[str]] = field(default_factory=dict)

    def add(self, evidence_id: str, hypothesis_id: str, reason: str) -> None:
        """Remember one contradiction."""
        hypotheses = self.by_evidence.setdefault(evidence_id, [])
        if hypothesis_id not in hypotheses:
            hypotheses.append(hypothesis_id)
            self.reasons.setdefault(evidence_id, []).append(reason)


def add_hypotheses(ctx: TurnContext, items: Sequence[HypothesisToAdd]) -> None:
    """New hypotheses, under test from now on."""
    for item in items:
        requirements = [
            EvidenceRequirement(
                description=r.description,
                evidence_type=r.evidence_type,
                acquisition_guidance=ctx.log.safety.optional_text(
                    r.acquisition_guidance, shown=False
                ),
                criticality=r.criticality,
            )
            for r in item.evidence_requirements
        ]
        hypothesis = Hypothesis(
            statement=ctx.log.safety.text(item.statement),
            category=item.category,
            likelihood=item.likelihood,
            rationale=ctx.log.safety.text(item.rationale, shown=False),
            generation_mode=item.generation_mode,
            evidence_requirements=requirements,
            generated_at_turn=ctx.case.current_turn,
        )
        ctx.case.hypotheses[hypothesis.hypothesis_id] = hypothesis
        ctx.log.hypothesis_refs[item.ref] = hypothesis.hypothesis_id


def update_hypotheses(
    ctx: TurnContext, updates: Sequence[HypothesisUpdate], refutations: Refutations
) -> None:
    """Likelihood and status changes; a 'refuted' status only becomes a question to the people."""
    for update in updates:
        hypothesis_id = ctx.hypothesis_id(update.hypothesis_id)
        if hypothesis_id is None:
            ctx.ignore(f"update of unknown hypothesis {update.hypothesis_id}")
            continue
        hypothesis = ctx.case.hypotheses[hypothesis_id]
        if update.likelihood is not None:
            hypothesis.likelihood = update.likelihood
        if update.rationale:
            hypothesis.rationale = ctx.log.safety.text(update.rationale, shown=False)
        if update.status is not None and update.status is not hypothesis.status:
            _change_status(ctx, hypothesis, update, refutations)


def _change_status(
    ctx: TurnContext, hypothesis: Hypothesis, update: HypothesisUpdate, refutations: Refutations
) -> None:
    status = update.status
    assert status is not None  # the caller checked
    if hypothesis.status in CONCLUDED:
        ctx.ignore(f"hypothesis {hypothesis.hypothesis_id} is already {hypothesis.status.value}")
    elif status is HypothesisStatus.REFUTED:
        evidence_id = ctx.evidence_id(update.evidence_id) or _latest_contradiction(hypothesis)
        if evidence_id is None:
            ctx.ignore(f"refutation of {hypothesis.hypothesis_id} names no contradicting evidence")
        else:
            reason = hypothesis.rationale if update.rationale else ""  # withheld as stored
            refutations.add(evidence_id, hypothesis.hypothesis_id, reason)
    elif status in CONCLUDED:
        conclude(hypothesis, status, now=ctx.now)
    else:
        hypothesis.status = status


def _latest_contradiction(hypothesis: Hypothesis) -> str | None:
    contradicting = [
        link.evidence_id
        for link in hypothesis.evidence_links.values()
        if link.stance in CONTRADICTING_STANCES
    ]
    return contradicting[-1] if contradicting else None


def link_hypotheses(
    ctx: TurnContext, links: Sequence[HypothesisEvidenceLinkToAdd], refutations: Refutations
) -> None:
    """Record links worth keeping; strong contradictions of hypotheses under test are queued."""
    for item in links:
        hypothesis_id = ctx.hypothesis_id(item.hypothesis_id)
        evidence_id = ctx.evidence_id(item.evidence_id)
        if hypothesis_id is None or evidence_id is None:
            ctx.ignore(f"link between unknown {item.hypothesis_id} and {item.evidence_id}")
            continue
        hypothesis = ctx.case.hypotheses[hypothesis_id]
        reasoning = ctx.log.safety.text(item.reasoning)
        link = link_evidence(
            hypothesis,
            evidence_id=evidence_id,
            stance=item.stance,
            reasoning=reasoning,
            completeness=item.completeness,
            now=ctx.now,
        )
        if link is not None and needs_refutation_confirmation(hypothesis, link):
            refutations.add(evidence_id, hypothesis_id, reasoning)


def propose_refutations(ctx: TurnContext, refutations: Refutations) -> None:
    """One question per contradicting evidence: confirm, dispute, or not sure (never silent)."""
    for evidence_id, hypothesis_ids in refutations.by_evidence.items():
        evidence = ctx.case.find_evidence(evidence_id)
        assert evidence is not None  # ids were resolved against the case
        statements = "; ".join(ctx.case.hypotheses[h].statement for h in hypothesis_ids)
        reasons = " ".join(r for r in refutations.reasons[evidence_id] if r)
        prompt = (
            f"⚠️ Evidence conflict: “{evidence.summary}” contradicts the hypothesis: {statements}. "
            f"{reasons} Can you confirm this finding is accurate? "
            "(Confirm: rule the hypothesis out · Dispute: the data may be wrong · Not sure)"
        )
        payload = RefutationPayload(
            hypothesis_ids=hypothesis_ids, evidence_id=evidence_id, explanation=reasons
        )
        ctx.propose(payload, " ".join(prompt.split()))
