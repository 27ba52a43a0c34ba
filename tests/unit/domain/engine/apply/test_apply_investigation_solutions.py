"""Applying an investigating reply (seed §11.10): milestones, solutions, verification and path."""

from __future__ import annotations

from datetime import UTC, datetime

from domain.engine.apply.reply import apply_reply
from domain.investigation.verification import InvestigationPath, TemporalState, UrgencyLevel
from domain.investigation.withheld import WithheldCommand
from domain.lifecycle.confirmations import (
    ConfirmationKind,
    ConfirmationState,
    PathChoicePayload,
    SolutionAppliedPayload,
    SolutionVerifiedPayload,
    StatusChangePayload,
)
from domain.lifecycle.responders import ResponderSet, ResponderSource
from domain.lifecycle.status import CaseStatus
from tests.unit.domain.builders import NOW, OPENER, add_solution, investigating_case
from tests.unit.domain.engine.apply.investigation_cases import (
    VERIFIED,
    ctx_for,
    evidence,
    verified_case,
)
from tests.unit.domain.engine.helpers import investigating, said


def test_milestones_never_go_back_and_a_persons_word_records_what_they_did() -> None:
    case = investigating_case()
    case.progress.symptom_verified = True
    mitigation = add_solution(case, mitigation=True, title="Fail over to replica")
    fix = add_solution(case, title="Raise pool size")
    ctx = ctx_for(case, said("done, failed over and errors are gone"))

    apply_reply(
        ctx,
        investigating(
            milestones={
                "symptom_verified": False,
                "mitigation_applied": True,
                "solution_applied": True,
                "solution_verified": True,
            },
        ),
    )

    progress = case.progress
    assert progress.symptom_verified
    # The person wrote that they failed over and it worked: recorded in their name, not asked.
    assert progress.mitigation_applied
    assert mitigation.state == "attested"
    assert [(c.kind, c.answered_by, c.state) for c in ctx.log.recorded] == [
        (ConfirmationKind.SOLUTION_APPLIED, OPENER, ConfirmationState.ACCEPTED),
        (ConfirmationKind.SOLUTION_VERIFIED, OPENER, ConfirmationState.ACCEPTED),
    ]
    # The permanent fix was not what they did: nothing about it is set.
    assert fix.applied_at is None
    assert not progress.solution_applied
    assert not progress.solution_verified
    (question,) = [c for c in ctx.log.proposed if c.is_pending]
    assert isinstance(question.payload, StatusChangePayload)
    assert question.payload.to_status is CaseStatus.RESOLVED


def test_the_model_alone_records_nothing_a_person_did() -> None:
    case = investigating_case()
    mitigation = add_solution(case, mitigation=True, title="Fail over to replica")
    ctx = ctx_for(case)  # no one wrote: the model's report is only a report

    apply_reply(ctx, investigating(milestones={"mitigation_applied": True}))

    assert not case.progress.mitigation_applied
    assert ctx.log.recorded == []
    (asked,) = ctx.log.proposed
    assert asked.payload == SolutionAppliedPayload(solution_id=mitigation.solution_id)


def test_a_non_responders_word_is_asked_about_not_recorded() -> None:
    case = investigating_case()
    add_solution(case, mitigation=True)
    ctx = ctx_for(case, said("rolled back", by="U_VISITOR"))
    ctx.turn = ctx.turn.model_copy(
        update={
            "responders": ResponderSet(
                members=frozenset({OPENER}), source=ResponderSource.CONFIRMERS
            )
        }
    )

    apply_reply(ctx, investigating(milestones={"mitigation_applied": True}))

    assert not case.progress.mitigation_applied
    assert ctx.log.recorded == []
    assert [c.kind for c in ctx.log.proposed] == [ConfirmationKind.SOLUTION_APPLIED]


def test_a_mitigation_that_worked_by_their_data_asks_one_short_question() -> None:
    case = investigating_case()
    mitigation = add_solution(case, mitigation=True, title="Roll back")
    add_solution(case, title="Restore the pool size")
    ctx = ctx_for(case, said("rolled back at 14:18, 0 errors since"))

    apply_reply(
        ctx,
        investigating(
            evidence_to_add=[evidence(summary="0 errors since 14:18")],
            milestones={"mitigation_applied": True, "solution_verified": True},
            applied_solution_id=mitigation.solution_id,
            verified_solution_id=mitigation.solution_id,
            verification_evidence_id="E1",
        ),
    )

    assert mitigation.state == "verified"
    assert [c.kind for c in ctx.log.recorded] == [
        ConfirmationKind.SOLUTION_APPLIED,
        ConfirmationKind.SOLUTION_VERIFIED,
    ]
    (question,) = [c for c in ctx.log.proposed if c.is_pending]
    assert isinstance(question.payload, StatusChangePayload)
    assert question.payload.to_status is CaseStatus.RESOLVED
    assert question.prompt == (
        "“Roll back” worked. Resolve the case and write the report? "
        "“Restore the pool size” stays as the follow-up."
    )
    assert case.status is CaseStatus.INVESTIGATING, "only a person's Yes resolves it"


def test_a_named_verification_carries_its_evidence() -> None:
    case = investigating_case()
    fix = add_solution(case)
    ctx = ctx_for(case, said("error rate 0% after the rollback"))

    apply_reply(
        ctx,
        investigating(
            evidence_to_add=[evidence(summary="0% errors since 15:10")],
            verified_solution_id=fix.solution_id,
            verification_evidence_id="E1",
            applied_solution_id=fix.solution_id,
        ),
    )

    (confirmation,) = ctx.log.proposed
    assert confirmation.payload == SolutionVerifiedPayload(
        solution_id=fix.solution_id, evidence_id=case.evidence[0].evidence_id
    )


def test_a_verified_mitigation_is_asked_about_without_resolving() -> None:
    case = investigating_case()
    mitigation = add_solution(case, mitigation=True)
    ctx = ctx_for(case)

    apply_reply(ctx, investigating(verified_solution_id=mitigation.solution_id))

    assert ctx.log.proposed[0].prompt == "Did “Roll back” fix it?"


def test_reported_milestones_without_a_matching_solution_ask_nothing() -> None:
    case = investigating_case()
    ctx = ctx_for(case)

    apply_reply(ctx, investigating(milestones={"solution_applied": True}))

    assert ctx.log.proposed == []
    assert ctx.log.ignored == ["a solution milestone was reported but no matching solution exists"]


def test_already_applied_solutions_are_not_asked_about_again() -> None:
    case = investigating_case()
    fix = add_solution(case)
    fix.applied_at = fix.verified_at = NOW

    ctx = ctx_for(case)
    apply_reply(
        ctx,
        investigating(applied_solution_id=fix.solution_id, verified_solution_id=fix.solution_id),
    )

    assert ctx.log.proposed == []


def test_solutions_keep_their_actions_and_withhold_destructive_commands() -> None:
    case = verified_case()
    case.progress.root_cause_identified = True
    ctx = ctx_for(case)

    apply_reply(
        ctx,
        investigating(
            solutions_to_add=[
                {
                    "solution_type": "rollback",
                    "title": "Roll back to v2.1.2",
                    "immediate_action": "kubectl rollout undo deployment/api",
                    "implementation_steps": [
                        "Ask the api owners to roll back",
                        "sudo systemctl restart api",
                    ],
                    "commands": [
                        "kubectl rollout status deployment/api",
                        "kubectl delete pod -l app=api",
                        "kubectl delete namespace api",
                    ],
                },
            ],
        ),
    )

    (solution,) = case.solutions
    assert solution.commands == [
        "kubectl rollout status deployment/api",
        "kubectl delete pod -l app=api",  # a restart: it changes state, people run it
        "(command withheld: `kubectl` — it deletes the namespace and everything in it)",
    ]
    # Written as prose, an action is put in code and says what it changes.
    assert solution.immediate_action == (
        "`kubectl rollout undo deployment/api` (↳ changes state: it rolls a workload back)"
    )
    assert solution.implementation_steps == [
        "Ask the api owners to roll back",
        "`sudo systemctl restart api` (↳ changes state: it starts, stops or restarts a service)",
    ]
    assert solution.withheld_commands == [
        WithheldCommand(destructive=True, reason="deletes the namespace and everything in it")
    ]
    assert case.progress.solution_proposed
    assert len(ctx.log.safety.removed) == 1


def test_verification_facts_merge_and_the_matrix_picks_the_path() -> None:
    case = investigating_case()
    case.problem_verification.affected_services = ["payments"]  # type: ignore[union-attr]
    ctx = ctx_for(case)

    apply_reply(
        ctx,
        investigating(
            milestones=VERIFIED,
            verification_updates={
                "affected_services": ["payments", "checkout"],
                "severity": "HIGH",
                "temporal_state": "ongoing",
                "urgency_level": "high",
                "started_at": "2026-11-21T14:05:00",
                "recent_changes": [
                    {
                        "description": "deploy v2.1.3",
                        "occurred_at": "2026-11-21T14:02:00Z",
                        "change_type": "deployment",
                    }
                ],
            },
        ),
    )

    pv = case.problem_verification
    assert pv is not None
    assert pv.affected_services == ["payments", "checkout"]
    assert pv.started_at == datetime(2026, 11, 21, 14, 5, tzinfo=UTC)
    assert (pv.temporal_state, pv.urgency_level) == (TemporalState.ONGOING, UrgencyLevel.HIGH)
    assert pv.recent_changes[0].description == "deploy v2.1.3"
    assert pv.verified_at == NOW
    assert case.path is InvestigationPath.MITIGATION_FIRST
    assert ctx.log.proposed == []


def test_an_ambiguous_case_lets_the_people_choose_the_path() -> None:
    case = investigating_case()
    ctx = ctx_for(case)

    apply_reply(
        ctx,
        investigating(
            milestones=VERIFIED,
            verification_updates={"temporal_state": "ongoing", "urgency_level": "medium"},
        ),
    )

    assert case.path is InvestigationPath.USER_CHOICE
    (confirmation,) = ctx.log.proposed
    assert confirmation.payload == PathChoicePayload(
        path=InvestigationPath.MITIGATION_FIRST, alternate=InvestigationPath.ROOT_CAUSE
    )


def test_verification_updates_create_the_record_if_missing() -> None:
    case = investigating_case()
    case.problem_verification = None

    apply_reply(ctx_for(case), investigating(verification_updates={"severity": "LOW"}))

    assert case.problem_verification is not None
    assert case.problem_verification.symptom_statement == case.consulting.proposed_problem_statement


def test_the_path_is_selected_once() -> None:
    case = investigating_case()
    ctx = ctx_for(case)
    apply_reply(
        ctx,
        investigating(
            milestones=VERIFIED,
            verification_updates={"temporal_state": "historical", "urgency_level": "low"},
        ),
    )
    assert case.path is InvestigationPath.ROOT_CAUSE

    apply_reply(
        ctx,
        investigating(
            verification_updates={"temporal_state": "ongoing", "urgency_level": "critical"}
        ),
    )

    assert case.path is InvestigationPath.ROOT_CAUSE


def test_asking_to_resolve_names_the_fix() -> None:
    case = investigating_case()
    ctx = ctx_for(case)

    apply_reply(
        ctx,
        investigating(
            status_change_request={"to_status": "resolved", "resolution_summary": "rolled back"}
        ),
    )

    (confirmation,) = ctx.log.proposed
    assert isinstance(confirmation.payload, StatusChangePayload)
    assert confirmation.payload.resolution_summary == "rolled back"
    assert confirmation.prompt == "Fixed by: rolled back. Resolve the case and write the report?"
    assert case.status is CaseStatus.INVESTIGATING
