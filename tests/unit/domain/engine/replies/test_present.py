"""The reply view model: new items only, buttons per question kind, escalation, the summary."""

from __future__ import annotations

from domain.engine.present import confirmation_prompt, escalation_view
from domain.engine.summary import Mitigation, Phase, summary_view
from domain.engine.view import EscalationOption
from domain.investigation.conclusions import WorkingConclusion
from domain.investigation.evidence_requests import EvidenceStatus
from domain.investigation.hypotheses import HypothesisStatus
from domain.investigation.verification import InvestigationPath
from domain.lifecycle.confirmations import (
    ConfirmationKind,
    Decision,
    PathChoicePayload,
    RefutationPayload,
)
from domain.lifecycle.proposals import propose
from domain.lifecycle.special_states import DegradedMode, DegradedModeType
from tests.unit.domain.builders import (
    NOW,
    add_evidence,
    add_hypothesis,
    add_request,
    add_solution,
    investigating_case,
    new_case,
)
from tests.unit.domain.engine.helpers import Rig, investigating, said


def test_each_kind_of_question_gets_its_buttons() -> None:
    case = investigating_case()
    hypothesis = add_hypothesis(case)
    evidence = add_evidence(case)
    refutation = propose(
        case,
        RefutationPayload(
            hypothesis_ids=[hypothesis.hypothesis_id], evidence_id=evidence.evidence_id
        ),
        now=NOW,
    )
    path = propose(
        case,
        PathChoicePayload(
            path=InvestigationPath.MITIGATION_FIRST, alternate=InvestigationPath.ROOT_CAUSE
        ),
        now=NOW,
    )

    refute, choose = confirmation_prompt(refutation), confirmation_prompt(path)

    assert refute.options == [Decision.YES, Decision.NO, Decision.UNSURE]
    assert choose.options == [Decision.YES, Decision.NO]
    assert refute.kind is ConfirmationKind.REFUTATION


def test_degraded_mode_offers_fallbacks_and_what_to_share() -> None:
    case = investigating_case()
    assert escalation_view(case) is None
    case.problem_verification.started_at = NOW  # type: ignore[union-attr]
    case.working_conclusion = WorkingConclusion(statement="pool", confidence=0.5, reasoning="r")
    blocked = add_request(case, label="Prod logs")
    blocked.status = EvidenceStatus.BLOCKED
    case.degraded_mode = DegradedMode(
        mode_type=DegradedModeType.LIMITED_DATA,
        reason="Critical evidence is blocked.",
        escalation_recommended=True,
    )

    view = escalation_view(case)

    assert view is not None
    assert view.recommended
    assert view.options == list(EscalationOption)
    assert view.share == [
        f"Problem: {case.problem_verification.symptom_statement}",  # type: ignore[union-attr]
        "Started: 2026-11-21T03:00+00:00",
        "Current understanding: pool",
        "Blocked: Prod logs",
        "This thread's history",
    ]


def test_an_exited_degraded_mode_offers_nothing() -> None:
    case = new_case()
    case.degraded_mode = DegradedMode(
        mode_type=DegradedModeType.NO_PROGRESS, reason="stuck", exited_at=NOW
    )

    assert escalation_view(case) is None
    case.degraded_mode.exited_at = None
    assert escalation_view(case).share[0] == "Case: payments 500s"  # type: ignore[union-attr]


def test_the_summary_says_where_the_incident_stands_and_who_moves_next() -> None:
    case = investigating_case()
    case.short_id = "FM-1"
    add_request(case, label="Pool metrics")

    view = summary_view(case)

    assert (view.short_id, view.phase) == ("FM-1", Phase.ONGOING)
    assert view.title == case.problem_verification.symptom_statement  # type: ignore[union-attr]
    assert view.next_step == f"{{@{case.user_id}}} to share: Pool metrics"
    assert not view.stuck
    assert summary_view(new_case(title="")).title == "Not stated yet"


def test_a_fix_people_say_works_is_attested_not_verified() -> None:
    case = investigating_case()
    solution = add_solution(case, title="Raise the pool")
    solution.applied_at = solution.verified_at = case.created_at

    view = summary_view(case)

    assert (view.mitigation, view.mitigation_title) == (Mitigation.ATTESTED, "Raise the pool")


async def test_a_turn_shows_new_requests_and_solutions_and_only_conclusions_that_changed() -> None:
    rig = Rig()
    case = investigating_case()
    add_request(case, label="Old request")
    add_solution(case, title="Old fix")
    likely = add_hypothesis(case)
    likely.likelihood = 0.9
    add_hypothesis(case, status=HypothesisStatus.REFUTED)

    result = await rig.turn(
        case,
        said("what next?"),
        investigating(
            "Run `kubectl delete namespace shop` — no wait. Roll back: "
            "`kubectl rollout undo deploy/api -n shop`.",
            evidence_requests=[
                {
                    "label": "Pool metrics",
                    "description": "pool usage",
                    "category": "metrics",
                    "guidance": {
                        "commands": ["psql -c 'select count(*) from pg_stat_activity'"],
                        "expected_output": "count near max_connections",
                    },
                }
            ],
            solutions_to_add=[
                {"solution_type": "config_change", "title": "Raise pool", "is_mitigation": True}
            ],
            working_conclusion={"statement": "pool", "confidence": 0.6, "reasoning": "timeouts"},
        ),
    )

    reply = result.reply
    (card,) = reply.evidence_requests
    assert (card.label, card.expected_output) == ("Pool metrics", "count near max_connections")
    assert [s.title for s in reply.solutions] == ["Raise pool"]
    assert reply.solutions[0].state == "proposed"
    assert reply.hypotheses == [], "unchanged this turn: the summary keeps them, no repeat"
    assert likely.hypothesis_id in case.hypotheses
    assert reply.working_conclusion is not None  # new this turn
    # Destructive: withheld, named; changes state: shown in code with what it changes.
    assert "kubectl delete" not in reply.text
    assert "`kubectl rollout undo deploy/api -n shop` (↳ changes state:" in reply.text
    assert reply.notices == [
        "Withheld 1 suggested command: `kubectl` — it deletes the namespace and everything in it."
    ]
    assert reply.debug.removed_commands[0].command == "kubectl delete namespace shop"
    assert reply.summary.cause is not None
