"""Evidence purpose is inferred by the system; requests follow the lifecycle algorithm."""

from __future__ import annotations

import pytest

from domain.investigation.evidence import (
    CompletenessLevel,
    EvidenceCategory,
    EvidenceClassification,
    EvidenceForm,
    EvidenceType,
    UserIntent,
    infer_evidence_category,
    milestones_advanced_by,
)
from domain.investigation.evidence_requests import (
    AcquisitionGuidance,
    EvidenceRequest,
    EvidenceStatus,
    RequestCategory,
    apply_classification,
    block_request,
    blocked_critical,
    mark_obsolete,
    open_requests,
    status_for_completeness,
)
from domain.investigation.progress import InvestigationProgress

VERIFIED = InvestigationProgress(
    symptom_verified=True, scope_assessed=True, timeline_established=True, changes_identified=True
)


def _request(**fields) -> EvidenceRequest:
    base = {
        "label": "Error logs",
        "description": "why",
        "category": RequestCategory.SYMPTOMS,
        "created_at_turn": 0,
    }
    base.update(fields)
    return EvidenceRequest(**base)


def _classified(ids, score, intent=UserIntent.PROVIDING_EVIDENCE, level=CompletenessLevel.PARTIAL):
    return EvidenceClassification(
        matched_request_ids=ids,
        completeness=level,
        completeness_score=score,
        form=EvidenceForm.USER_INPUT,
        evidence_type=EvidenceType.SUPPORTIVE,
        user_intent=intent,
        rationale="because",
    )


def test_evidence_testing_a_hypothesis_is_causal():
    assert infer_evidence_category(
        tests_hypothesis_id="hyp_1", progress=InvestigationProgress()
    ) is (EvidenceCategory.CAUSAL_EVIDENCE)


def test_evidence_before_verification_is_complete_is_symptom_evidence():
    assert infer_evidence_category(tests_hypothesis_id=None, progress=InvestigationProgress()) is (
        EvidenceCategory.SYMPTOM_EVIDENCE
    )


def test_evidence_after_a_solution_is_proposed_is_resolution_evidence():
    progress = VERIFIED.model_copy(update={"solution_proposed": True})
    assert infer_evidence_category(tests_hypothesis_id=None, progress=progress) is (
        EvidenceCategory.RESOLUTION_EVIDENCE
    )


def test_otherwise_evidence_is_other():
    assert (
        infer_evidence_category(tests_hypothesis_id=None, progress=VERIFIED)
        is EvidenceCategory.OTHER
    )


@pytest.mark.parametrize(
    ("category", "expected"),
    [
        (EvidenceCategory.SYMPTOM_EVIDENCE, ["symptom_verified", "timeline_established"]),
        (EvidenceCategory.CAUSAL_EVIDENCE, ["root_cause_identified"]),
        (EvidenceCategory.RESOLUTION_EVIDENCE, ["solution_verified"]),
        (EvidenceCategory.OTHER, []),
    ],
)
def test_evidence_advances_only_the_milestones_of_its_purpose(category, expected):
    newly = [
        "symptom_verified",
        "timeline_established",
        "root_cause_identified",
        "solution_verified",
    ]
    assert milestones_advanced_by(category, newly) == expected


@pytest.mark.parametrize(
    ("score", "expected"),
    [
        (0.0, EvidenceStatus.PENDING),
        (0.29, EvidenceStatus.PENDING),
        (0.3, EvidenceStatus.PARTIAL),
        (0.79, EvidenceStatus.PARTIAL),
        (0.8, EvidenceStatus.COMPLETE),
        (1.0, EvidenceStatus.COMPLETE),
    ],
)
def test_thresholds_complete_at_point_eight_partial_at_point_three(score, expected):
    assert status_for_completeness(EvidenceStatus.PENDING, score) is expected


def test_completeness_takes_the_max_not_the_sum():
    request = _request()
    apply_classification([request], _classified([request.request_id], 0.5), turn=1)
    apply_classification([request], _classified([request.request_id], 0.4), turn=2)
    assert request.completeness == 0.5
    assert request.status is EvidenceStatus.PARTIAL
    assert request.updated_at_turn == 2
    apply_classification([request], _classified([request.request_id], 0.9), turn=3)
    assert request.status is EvidenceStatus.COMPLETE


def test_one_input_can_satisfy_several_requests():
    first, second = _request(), _request(label="Affected endpoints", category=RequestCategory.SCOPE)
    ids = [first.request_id, second.request_id]
    apply_classification(
        [first, second], _classified(ids, 1.0, level=CompletenessLevel.OVER_COMPLETE), turn=1
    )
    assert first.status is second.status is EvidenceStatus.COMPLETE


def test_reporting_unavailable_blocks_the_matched_requests_with_the_reason():
    request = _request()
    classification = _classified([request.request_id], 0.0, intent=UserIntent.REPORTING_UNAVAILABLE)
    apply_classification([request], classification, turn=1, blocked_reason="no prod access")
    assert request.status is EvidenceStatus.BLOCKED
    assert request.metadata["blocked_reason"] == "no prod access"
    other = _request()
    apply_classification(
        [other],
        _classified([other.request_id], 0.0, intent=UserIntent.REPORTING_UNAVAILABLE),
        turn=1,
    )
    assert other.metadata["blocked_reason"] == "because"


def test_unknown_request_ids_are_reported_and_obsolete_requests_untouched():
    request = _request(status=EvidenceStatus.OBSOLETE)
    unknown = apply_classification(
        [request], _classified([request.request_id, "req_ghost"], 0.9), turn=1
    )
    assert unknown == ["req_ghost"]
    assert request.status is EvidenceStatus.OBSOLETE


def test_any_state_can_become_obsolete():
    pending, done = _request(), _request(status=EvidenceStatus.COMPLETE)
    mark_obsolete([pending, done], [pending.request_id, done.request_id], turn=4)
    assert pending.status is done.status is EvidenceStatus.OBSOLETE
    mark_obsolete([pending], [pending.request_id], turn=5)
    assert pending.updated_at_turn == 4


def test_cant_get_this_blocks_an_open_request_but_not_a_finished_one():
    request, done = _request(), _request(status=EvidenceStatus.COMPLETE)
    block_request(request, reason="logs rotated", turn=2)
    block_request(done, reason="logs rotated", turn=2)
    assert request.status is EvidenceStatus.BLOCKED
    assert done.status is EvidenceStatus.COMPLETE


def test_open_and_blocked_critical_views():
    pending = _request()
    partial = _request(status=EvidenceStatus.PARTIAL)
    blocked = _request(status=EvidenceStatus.BLOCKED)
    optional_blocked = _request(status=EvidenceStatus.BLOCKED, criticality="optional")
    requests = [pending, partial, blocked, optional_blocked]
    assert open_requests(requests) == [pending, partial]
    assert blocked_critical(requests) == [blocked]


def test_guidance_enforces_the_item_limits():
    with pytest.raises(ValueError, match="at most 3"):
        AcquisitionGuidance(commands=["a", "b", "c", "d"])
    with pytest.raises(ValueError, match="at most 2"):
        AcquisitionGuidance(prerequisites=["a", "b", "c"])
    with pytest.raises(ValueError, match="at most 200"):
        AcquisitionGuidance(expected_output="x" * 201)
