"""Applying an investigating reply: the system's post-processing of seed §11.10."""

from __future__ import annotations

from datetime import UTC, datetime

from domain.case import Case
from domain.confirmations import (
    ConfirmationKind,
    PathChoicePayload,
    RefutationPayload,
    SolutionAppliedPayload,
    SolutionVerifiedPayload,
    StatusChangePayload,
)
from domain.engine.apply import apply_reply
from domain.engine.context import TurnContext
from domain.engine.inputs import TurnInput
from domain.evidence import (
    EvidenceCategory,
    EvidenceForm,
    EvidenceSourceType,
    EvidenceStance,
)
from domain.evidence_requests import EvidenceStatus
from domain.hypotheses import HypothesisStatus
from domain.status import CaseStatus
from domain.verification import InvestigationPath, PathSelection, TemporalState, UrgencyLevel
from tests.unit.domain.builders import (
    NOW,
    add_evidence,
    add_hypothesis,
    add_request,
    add_solution,
    investigating_case,
)
from tests.unit.domain.engine.helpers import investigating, said, upload

VERIFIED = {
    "symptom_verified": True,
    "scope_assessed": True,
    "timeline_established": True,
    "changes_identified": True,
}


def ctx_for(case: Case, *messages, files=None) -> TurnContext:  # type: ignore[no-untyped-def]
    turn = TurnInput(messages=list(messages), files=files or [])
    return TurnContext(case=case, now=NOW, turn=turn)


def evidence(ref: str = "E1", **fields) -> dict:  # type: ignore[no-untyped-def]
    return {"ref": ref, "summary": "500s from PaymentService at 14:05", **fields}


def verified_case() -> Case:
    """Verification done and the root-cause path chosen."""
    case = investigating_case()
    for name in VERIFIED:
        setattr(case.progress, name, True)
    case.path_selection = PathSelection(
        path=InvestigationPath.ROOT_CAUSE, auto_selected=True, rationale="matrix"
    )
    return case


def test_evidence_gets_every_system_field() -> None:
    case = investigating_case()
    file = upload("app.log")
    ctx = ctx_for(case, said("here you go", files=[file.file.file_id]), files=[file])

    apply_reply(
        ctx,
        investigating(
            evidence_to_add=[evidence(source_ref=file.file.file_id, analysis="pool exhausted")],
            milestones={
                "symptom_verified": True,
                "timeline_established": True,
                "root_cause_identified": True,
            },
        ),
    )

    (item,) = case.evidence
    assert item.evidence_id.startswith("ev_")
    assert (
        item.category is EvidenceCategory.SYMPTOM_EVIDENCE
    )  # inferred before this turn's milestones
    assert item.advances_milestones == ["symptom_verified", "timeline_established"]
    assert (item.content_ref, item.form) == (f"file:{file.file.file_id}", EvidenceForm.DOCUMENT)
    assert item.source_type is EvidenceSourceType.LOG_FILE
    assert (item.collected_at, item.collected_by, item.collected_at_turn) == (NOW, "U_OPENER", 0)
    assert item.analysis == "pool exhausted"
    assert ctx.log.evidence_refs == {"E1": item.evidence_id}


def test_evidence_source_defaults_to_the_newest_input() -> None:
    case = investigating_case()
    pasted = said("```\nERROR pool exhausted\n```")
    ctx = ctx_for(case, pasted)

    apply_reply(ctx, investigating(evidence_to_add=[evidence(source_ref="nope")]))

    (item,) = case.evidence
    assert item.content_ref == f"msg:{pasted.ts}"
    assert item.source_type is EvidenceSourceType.COMMAND_OUTPUT
    assert ctx.log.ignored == ["evidence source nope is not an input of this turn"]


def test_a_lone_upload_is_the_source_and_nothing_at_all_is_the_turn() -> None:
    case = investigating_case()
    file = upload("config.yaml")
    apply_reply(ctx_for(case, files=[file]), investigating(evidence_to_add=[evidence()]))
    apply_reply(ctx_for(case), investigating(evidence_to_add=[evidence("E2")]))

    first, second = case.evidence
    assert first.source_type is EvidenceSourceType.CONFIG_FILE
    assert (second.content_ref, second.source_type) == ("turn:0", EvidenceSourceType.OTHER)


def test_evidence_testing_a_hypothesis_is_causal_and_links_resolve_refs() -> None:
    case = verified_case()
    ctx = ctx_for(case, said("pool stats attached"))

    apply_reply(
        ctx,
        investigating(
            hypotheses_to_add=[
                {
                    "ref": "H1",
                    "statement": "Pool exhausted",
                    "category": "config",
                    "likelihood": 0.7,
                    "rationale": "timeouts",
                    "evidence_requirements": [
                        {
                            "description": "pool stats",
                            "evidence_type": "metrics",
                            "acquisition_guidance": "`rm -rf /data`",
                        }
                    ],
                },
            ],
            evidence_to_add=[evidence(tests_hypothesis_id="H1", stance="supports")],
            hypothesis_evidence_links=[
                {
                    "hypothesis_id": "H1",
                    "evidence_id": "E1",
                    "stance": "supports",
                    "reasoning": "95% used",
                    "completeness": 0.8,
                },
            ],
        ),
    )

    (hypothesis,) = case.hypotheses.values()
    (item,) = case.evidence
    assert item.category is EvidenceCategory.CAUSAL_EVIDENCE
    assert item.tests_hypothesis_id == hypothesis.hypothesis_id
    assert item.stance is EvidenceStance.SUPPORTS
    assert hypothesis.supporting_evidence == [item.evidence_id]
    assert hypothesis.status is HypothesisStatus.ACTIVE
    assert "rm -rf" not in (hypothesis.evidence_requirements[0].acquisition_guidance or "")


def test_unknown_ids_from_the_model_are_ignored_not_fatal() -> None:
    case = investigating_case()
    ctx = ctx_for(case)

    apply_reply(
        ctx,
        investigating(
            evidence_to_add=[evidence(tests_hypothesis_id="hyp_ghost", stance="supports")],
            hypotheses_to_update=[{"hypothesis_id": "hyp_ghost", "status": "validated"}],
            hypothesis_evidence_links=[
                {
                    "hypothesis_id": "hyp_ghost",
                    "evidence_id": "E1",
                    "stance": "supports",
                    "reasoning": "-",
                    "completeness": 1.0,
                },
            ],
            obsolete_request_ids=["req_ghost"],
            applied_solution_id="sol_ghost",
            working_conclusion={
                "statement": "x",
                "confidence": 0.4,
                "reasoning": "y",
                "supporting_evidence_ids": ["E1", "ev_ghost"],
            },
        ),
    )

    (item,) = case.evidence
    assert item.tests_hypothesis_id is None
    assert item.stance is None
    assert case.working_conclusion.supporting_evidence_ids == [item.evidence_id]  # type: ignore[union-attr]
    assert ctx.log.ignored == [
        "evidence tests unknown hypothesis hyp_ghost",
        "unknown evidence ev_ghost cited",
        "update of unknown hypothesis hyp_ghost",
        "link between unknown hyp_ghost and E1",
        "unknown solution sol_ghost",
        "unknown evidence request req_ghost marked obsolete",
    ]


def test_milestones_never_go_back_and_human_actions_are_withheld() -> None:
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
    assert not progress.mitigation_applied
    assert not progress.solution_applied
    assert not progress.solution_verified
    payloads = [c.payload for c in ctx.log.proposed]
    assert payloads == [
        SolutionVerifiedPayload(solution_id=fix.solution_id),
        SolutionAppliedPayload(solution_id=mitigation.solution_id),
    ]
    assert "resolves the case" in ctx.log.proposed[0].prompt


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

    assert ctx.log.proposed[0].prompt.endswith("records it as verified.")


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


def test_solutions_are_proposed_with_unsafe_commands_withheld() -> None:
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
                    ],
                },
            ],
        ),
    )

    (solution,) = case.solutions
    assert solution.commands == ["kubectl rollout status deployment/api"]
    assert solution.immediate_action == "(command withheld: it rolls a workload back)"
    assert solution.implementation_steps[0] == "Ask the api owners to roll back"
    assert "systemctl" not in solution.implementation_steps[1]
    assert case.progress.solution_proposed
    assert len(ctx.log.safety.removed) == 3


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
    from domain.hypotheses import HypothesisEvidenceLink

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


def test_evidence_requests_are_safe_new_and_at_most_three() -> None:
    case = investigating_case()
    add_request(case, label="Error logs")
    ctx = ctx_for(case)
    request = {"label": "Error logs", "description": "Need logs", "category": "symptoms"}
    others = [
        {
            **request,
            "label": f"Metric {i}",
            "guidance": {"commands": ["curl -s http://x/metrics", "rm -rf /"]},
        }
        for i in range(3)
    ]

    apply_reply(ctx, investigating(evidence_requests=[request, *others[:2]]))
    apply_reply(ctx, investigating(evidence_requests=[others[2], others[2]]))

    labels = [r.label for r in case.evidence_requests]
    assert labels == ["Error logs", "Metric 0", "Metric 1", "Metric 2"]
    assert all(
        r.guidance.commands == ["curl -s http://x/metrics"] for r in case.evidence_requests[1:]
    )
    assert ctx.log.ignored == [
        "evidence request 'Error logs' repeats an open request",
        "evidence request 'Metric 2' repeats an open request",
    ]


def test_obsolete_requests_are_closed() -> None:
    case = investigating_case()
    request = add_request(case)

    apply_reply(ctx_for(case), investigating(obsolete_request_ids=[request.request_id]))

    assert request.status is EvidenceStatus.OBSOLETE


def test_the_classification_updates_requests_and_new_evidence() -> None:
    case = investigating_case()
    logs, scope = add_request(case), add_request(case, label="Scope")
    file = upload()
    ctx = ctx_for(case, files=[file])

    apply_reply(
        ctx,
        investigating(
            evidence_to_add=[evidence()],
            classification={
                "matched_request_ids": [logs.request_id, "req_ghost"],
                "completeness": "complete",
                "completeness_score": 0.9,
                "form": "user_input",
                "evidence_type": "supportive",
                "user_intent": "providing_evidence",
                "rationale": "logs",
            },
        ),
    )

    assert logs.status is EvidenceStatus.COMPLETE
    assert scope.status is EvidenceStatus.PENDING
    (item,) = case.evidence
    assert item.fulfills_request_id == logs.request_id
    assert item.classification is not None
    assert item.classification.form is EvidenceForm.DOCUMENT  # the system knows it was a file
    assert ctx.log.ignored == ["classification matched unknown evidence request req_ghost"]


def test_reporting_data_unavailable_blocks_the_request_with_the_reason() -> None:
    case = investigating_case()
    logs, metrics = add_request(case), add_request(case, label="Metrics")
    ctx = ctx_for(case, said("I don't have access to the prod logs or grafana"))

    apply_reply(
        ctx,
        investigating(
            classification={
                "matched_request_ids": [logs.request_id, metrics.request_id],
                "completeness": "over_complete",
                "completeness_score": 0.0,
                "form": "user_input",
                "evidence_type": "absence",
                "user_intent": "reporting_unavailable",
                "rationale": "no access",
            }
        ),
    )

    assert logs.status is metrics.status is EvidenceStatus.BLOCKED
    assert logs.metadata["blocked_reason"] == "I don't have access to the prod logs or grafana"


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
    assert "Root cause: not identified · Fix: rolled back" in confirmation.prompt
    assert case.status is CaseStatus.INVESTIGATING


def test_screenshots_are_recognised_by_their_type() -> None:
    case = investigating_case()
    shot = upload("grafana.png")
    shot = shot.model_copy(
        update={"file": shot.file.model_copy(update={"content_type": "image/png"})}
    )

    apply_reply(ctx_for(case, files=[shot]), investigating(evidence_to_add=[evidence()]))

    assert case.evidence[0].source_type is EvidenceSourceType.SCREENSHOT


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
