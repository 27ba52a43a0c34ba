"""What the model writes into the case passes the safety validator before anyone can see it."""

from __future__ import annotations

from datetime import UTC, datetime

from domain.engine.apply.reply import apply_reply
from tests.unit.domain.builders import add_hypothesis, triaged_case
from tests.unit.domain.engine.apply.investigation_cases import ctx_for, verified_case
from tests.unit.domain.engine.helpers import consulting, investigating

UNSAFE = "Run `kubectl delete ns prod` now"


def test_a_proposed_problem_statement_is_checked() -> None:
    case = triaged_case()
    ctx = ctx_for(case)

    apply_reply(ctx, consulting(proposed_problem_statement=UNSAFE))

    (question,) = ctx.log.proposed
    assert case.consulting.proposed_problem_statement == (
        "Run (command withheld: `kubectl` — it deletes the namespace and everything in it) now"
    )
    assert "kubectl delete" not in question.prompt
    assert len(ctx.log.safety.removed) == 1


def test_verified_facts_and_alternative_explanations_are_checked() -> None:
    case = verified_case()
    hypothesis = add_hypothesis(case)
    ctx = ctx_for(case)

    apply_reply(
        ctx,
        investigating(
            verification_updates={
                "symptom_indicators": [UNSAFE, "HTTP 500 at 30%"],
                "user_impact": "```rm -rf /```",
                "recent_changes": [
                    {"description": UNSAFE, "occurred_at": datetime(2026, 11, 21, tzinfo=UTC)}
                ],
            },
            root_cause_conclusion={
                "root_cause": "Pool size 10",
                "confidence_score": 0.8,
                "mechanism": "requests wait",
                "validated_hypothesis_id": hypothesis.hypothesis_id,
                "alternative_explanations": [
                    {"hypothesis": UNSAFE, "confidence": 0.1, "why_less_likely": "`rm -rf /`"}
                ],
            },
        ),
    )

    verified = case.problem_verification
    assert verified is not None
    assert verified.symptom_indicators[1] == "HTTP 500 at 30%"
    (alternative,) = case.root_cause_conclusion.alternative_explanations  # type: ignore[union-attr]
    shown = [
        *verified.symptom_indicators,
        verified.user_impact or "",
        *(change.description for change in verified.recent_changes),
        alternative.hypothesis,
        alternative.why_less_likely,
    ]
    for text in shown:
        assert "kubectl delete" not in text
        assert "rm -rf" not in text
    assert len(ctx.log.safety.removed) == 5
