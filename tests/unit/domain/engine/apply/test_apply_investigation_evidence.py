"""Applying an investigating reply (seed §11.10): evidence, evidence requests and classification."""

from __future__ import annotations

from domain.engine.apply.reply import apply_reply
from domain.investigation.evidence import (
    EvidenceCategory,
    EvidenceForm,
    EvidenceSourceType,
    EvidenceStance,
)
from domain.investigation.evidence_requests import EvidenceStatus
from domain.investigation.hypotheses import HypothesisStatus
from tests.unit.domain.builders import NOW, add_request, investigating_case
from tests.unit.domain.engine.apply.investigation_cases import ctx_for, evidence, verified_case
from tests.unit.domain.engine.helpers import investigating, said, upload


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


def test_screenshots_are_recognised_by_their_type() -> None:
    case = investigating_case()
    shot = upload("grafana.png")
    shot = shot.model_copy(
        update={"file": shot.file.model_copy(update={"content_type": "image/png"})}
    )

    apply_reply(ctx_for(case, files=[shot]), investigating(evidence_to_add=[evidence()]))

    assert case.evidence[0].source_type is EvidenceSourceType.SCREENSHOT
