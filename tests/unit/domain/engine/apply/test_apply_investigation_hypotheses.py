"""Applying an investigating reply (seed §11.10): hypotheses, root cause and conclusions."""

from __future__ import annotations

from datetime import UTC, datetime

from domain.engine.apply.reply import apply_reply
from domain.engine.context import TurnContext
from domain.investigation.evidence import EvidenceStance
from domain.investigation.hypotheses import HypothesisStatus
from domain.lifecycle.confirmations import ConfirmationKind, RefutationPayload
from tests.unit.domain.builders import NOW, add_evidence, add_hypothesis, investigating_case
from tests.unit.domain.engine.apply.investigation_cases import ctx_for, evidence, verified_case
from tests.unit.domain.engine.helpers import investigating, said


def test_a_root_cause_completes_its_milestone_and_validates_its_hypothesis() -> None:
    case = verified_case()
    hypothesis = add_hypothesis(case)
    support = add_evidence(case)
    ctx = ctx_for(case)

    apply_reply(
        ctx,
        investigating(
            root_cause_conclusion={
                "root_cause": "Pool size 10 after config change",
                "confidence_score": 0.85,
                "mechanism": "requests wait for connections and time out",
                "evidence_basis": [support.evidence_id],
                "missing_evidence": ["heap dump"],
                "validated_hypothesis_id": hypothesis.hypothesis_id,
                "alternative_explanations": [
                    {
                        "hypothesis": "traffic spike",
                        "confidence": 0.1,
                        "why_less_likely": "flat traffic",
                    }
                ],
            },
        ),
    )

    rc = case.root_cause_conclusion
    assert rc is not None
    assert rc.determined_at == NOW
    assert rc.confidence_level.value == "confident"
    assert case.progress.root_cause_identified
    assert case.progress.root_cause_confidence == 0.85
    assert hypothesis.status is HypothesisStatus.VALIDATED


def test_a_root_cause_naming_an_unknown_hypothesis_keeps_the_rest() -> None:
    case = verified_case()
    ctx = ctx_for(case)

    apply_reply(
        ctx,
        investigating(
            root_cause_conclusion={
                "root_cause": "x",
                "confidence_score": 0.4,
                "mechanism": "y",
                "validated_hypothesis_id": "hyp_ghost",
            }
        ),
    )

    assert case.root_cause_conclusion.validated_hypothesis_id is None  # type: ignore[union-attr]
    assert ctx.log.ignored == ["root cause names unknown hypothesis hyp_ghost"]


def test_a_working_conclusion_records_what_it_supersedes() -> None:
    case = investigating_case()
    conclusion = {"statement": "pool", "confidence": 0.5, "reasoning": "timeouts"}
    apply_reply(ctx_for(case), investigating(working_conclusion=conclusion))
    later = TurnContext(case=case, now=datetime(2026, 11, 21, 4, 0, tzinfo=UTC))

    apply_reply(later, investigating(working_conclusion={**conclusion, "confidence": 0.7}))

    assert case.working_conclusion.supersedes_conclusion_at == NOW  # type: ignore[union-attr]


def test_hypothesis_updates_change_likelihood_and_status() -> None:
    case = verified_case()
    captured = add_hypothesis(case, status=HypothesisStatus.CAPTURED)
    doomed = add_hypothesis(case)
    done = add_hypothesis(case, status=HypothesisStatus.VALIDATED)
    ctx = ctx_for(case)

    apply_reply(
        ctx,
        investigating(
            hypotheses_to_update=[
                {
                    "hypothesis_id": captured.hypothesis_id,
                    "status": "active",
                    "likelihood": 0.6,
                    "rationale": "new data",
                },
                {"hypothesis_id": doomed.hypothesis_id, "status": "inconclusive"},
                {"hypothesis_id": done.hypothesis_id, "status": "active"},
                {"hypothesis_id": done.hypothesis_id, "status": "validated"},
            ]
        ),
    )

    assert (captured.status, captured.likelihood, captured.rationale) == (
        HypothesisStatus.ACTIVE,
        0.6,
        "new data",
    )
    assert doomed.status is HypothesisStatus.INCONCLUSIVE
    assert doomed.concluded_at == NOW
    assert done.status is HypothesisStatus.VALIDATED
    assert ctx.log.ignored == [f"hypothesis {done.hypothesis_id} is already validated"]


def test_a_refuted_status_only_asks_the_people() -> None:
    case = verified_case()
    named = add_hypothesis(case)
    implicit = add_hypothesis(case)
    unsupported = add_hypothesis(case)
    contradicting = add_evidence(case)
    implicit.evidence_links[contradicting.evidence_id] = _link(
        implicit.hypothesis_id, contradicting.evidence_id
    )
    ctx = ctx_for(case)

    apply_reply(
        ctx,
        investigating(
            hypotheses_to_update=[
                {
                    "hypothesis_id": named.hypothesis_id,
                    "status": "refuted",
                    "evidence_id": contradicting.evidence_id,
                    "rationale": "pool at 45%",
                },
                {"hypothesis_id": implicit.hypothesis_id, "status": "refuted"},
                {"hypothesis_id": unsupported.hypothesis_id, "status": "refuted"},
            ]
        ),
    )

    assert all(h.status is HypothesisStatus.ACTIVE for h in case.hypotheses.values())
    (confirmation,) = ctx.log.proposed
    assert confirmation.payload == RefutationPayload(
        hypothesis_ids=[named.hypothesis_id, implicit.hypothesis_id],
        evidence_id=contradicting.evidence_id,
        explanation="pool at 45%",
    )
    assert confirmation.prompt.startswith("⚠️ Evidence conflict:")
    assert ctx.log.ignored == [
        f"refutation of {unsupported.hypothesis_id} names no contradicting evidence"
    ]


def _link(hypothesis_id: str, evidence_id: str):  # type: ignore[no-untyped-def]
    from domain.investigation.hypotheses import HypothesisEvidenceLink

    return HypothesisEvidenceLink(
        hypothesis_id=hypothesis_id,
        evidence_id=evidence_id,
        stance=EvidenceStance.CONTRADICTS,
        reasoning="r",
        completeness=0.9,
        analyzed_at=NOW,
    )


def test_strong_contradictions_are_never_silent() -> None:
    case = verified_case()
    pool = add_hypothesis(case)
    dns = add_hypothesis(case)
    ctx = ctx_for(case, said("pool metrics: 45% used"))

    apply_reply(
        ctx,
        investigating(
            evidence_to_add=[evidence(summary="Connection pool at 45%")],
            hypothesis_evidence_links=[
                {
                    "hypothesis_id": pool.hypothesis_id,
                    "evidence_id": "E1",
                    "stance": "strongly_contradicts",
                    "reasoning": "Expected >90% pool use.",
                    "completeness": 0.9,
                },
                {
                    "hypothesis_id": dns.hypothesis_id,
                    "evidence_id": "E1",
                    "stance": "irrelevant",
                    "reasoning": "-",
                    "completeness": 0.9,
                },
                {
                    "hypothesis_id": dns.hypothesis_id,
                    "evidence_id": "E1",
                    "stance": "contradicts",
                    "reasoning": "weak",
                    "completeness": 0.5,
                },
            ],
        ),
    )

    assert pool.status is HypothesisStatus.ACTIVE
    assert pool.refuting_evidence == [case.evidence[0].evidence_id]
    assert list(dns.evidence_links) == [case.evidence[0].evidence_id]
    (confirmation,) = ctx.log.proposed
    assert confirmation.kind is ConfirmationKind.REFUTATION
    assert confirmation.payload.hypothesis_ids == [pool.hypothesis_id]  # type: ignore[union-attr]
    assert "Expected >90% pool use." in confirmation.prompt


def test_a_hypothesis_contradicted_twice_by_one_evidence_is_asked_about_once() -> None:
    case = verified_case()
    hypothesis = add_hypothesis(case)
    item = add_evidence(case)
    link = {
        "hypothesis_id": hypothesis.hypothesis_id,
        "evidence_id": item.evidence_id,
        "stance": "strongly_contradicts",
        "reasoning": "no",
        "completeness": 1.0,
    }
    ctx = ctx_for(case)

    apply_reply(
        ctx,
        investigating(
            hypothesis_evidence_links=[link],
            hypotheses_to_update=[
                {
                    "hypothesis_id": hypothesis.hypothesis_id,
                    "status": "refuted",
                    "evidence_id": item.evidence_id,
                }
            ],
        ),
    )

    (confirmation,) = ctx.log.proposed
    assert confirmation.payload.hypothesis_ids == [hypothesis.hypothesis_id]  # type: ignore[union-attr]


def test_a_contradiction_quotes_no_unsafe_command_from_the_model() -> None:
    case = verified_case()
    pool = add_hypothesis(case)
    ctx = ctx_for(case, said("pool metrics: 45% used"))

    apply_reply(
        ctx,
        investigating(
            evidence_to_add=[
                evidence(
                    summary="Run `kubectl delete pod api-0` now", key_findings=["```rm -rf /```"]
                )
            ],
            hypothesis_evidence_links=[
                {
                    "hypothesis_id": pool.hypothesis_id,
                    "evidence_id": "E1",
                    "stance": "strongly_contradicts",
                    "reasoning": "```\nrm -rf /var/lib/postgresql\n```",
                    "completeness": 0.9,
                }
            ],
        ),
    )

    (confirmation,) = ctx.log.proposed
    (added,) = case.evidence
    link = pool.evidence_links[added.evidence_id]
    for shown in (confirmation.prompt, added.summary, *added.key_findings, link.reasoning):
        assert "rm -rf" not in shown
        assert "kubectl delete" not in shown
    assert "(command withheld: `rm` — it deletes files recursively)" in confirmation.prompt
    assert len(ctx.log.safety.removed) == 3  # each withheld once, however often it is quoted


def test_a_command_withheld_from_a_rationale_no_one_sees_is_not_announced() -> None:
    case = verified_case()
    hypothesis = add_hypothesis(case)
    ctx = ctx_for(case)

    apply_reply(
        ctx,
        investigating(
            hypotheses_to_update=[
                {
                    "hypothesis_id": hypothesis.hypothesis_id,
                    "status": "active",
                    "likelihood": 0.6,
                    "rationale": "if so, kubectl delete ns payments would clear it",
                }
            ]
        ),
    )

    assert "kubectl delete" not in hypothesis.rationale
    assert len(ctx.log.safety.removed) == 1
    assert ctx.log.safety.notice() is None
