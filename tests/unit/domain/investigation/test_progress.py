"""Milestones only move forward; stage and completion are computed from them."""

from __future__ import annotations

import pytest

from domain.investigation.progress import (
    MILESTONES,
    STAGE_FOCUS,
    InvestigationProgress,
    InvestigationStage,
    MilestoneUpdates,
    StageFocus,
    advance_milestones,
    compute_stage,
)
from domain.investigation.verification import InvestigationPath, PathSelection
from tests.unit.domain.builders import add_hypothesis, investigating_case, new_case


def test_completion_counts_nine_milestones():
    progress = InvestigationProgress(
        symptom_verified=True, mitigation_applied=True, scope_assessed=True
    )
    assert len(MILESTONES) == 9
    assert progress.completion_percentage == pytest.approx(3 / 9)


def test_verification_is_complete_only_with_all_four_verification_milestones():
    progress = InvestigationProgress(
        symptom_verified=True, scope_assessed=True, timeline_established=True
    )
    assert not progress.verification_complete
    progress.changes_identified = True
    assert progress.verification_complete


def test_milestones_never_regress_when_the_model_says_false():
    progress = InvestigationProgress(symptom_verified=True)
    newly = advance_milestones(
        progress, MilestoneUpdates(symptom_verified=False, scope_assessed=True)
    )
    assert progress.symptom_verified is True
    assert newly == ["scope_assessed"]


def test_several_milestones_can_complete_in_one_turn():
    progress = InvestigationProgress()
    updates = MilestoneUpdates(
        symptom_verified=True,
        timeline_established=True,
        root_cause_identified=True,
        root_cause_confidence=0.95,
        root_cause_method="direct_analysis",
    )
    newly = advance_milestones(progress, updates)
    assert newly == ["symptom_verified", "timeline_established", "root_cause_identified"]
    assert progress.root_cause_confidence == 0.95
    assert progress.root_cause_method == "direct_analysis"


def test_already_completed_milestones_are_not_reported_again():
    progress = InvestigationProgress(symptom_verified=True)
    assert advance_milestones(progress, MilestoneUpdates(symptom_verified=True)) == []


def test_withheld_milestones_are_not_applied():
    progress = InvestigationProgress()
    updates = MilestoneUpdates(solution_applied=True, solution_proposed=True)
    newly = advance_milestones(progress, updates, only=frozenset({"solution_proposed"}))
    assert newly == ["solution_proposed"]
    assert not progress.solution_applied


@pytest.mark.parametrize(
    ("progress", "mitigation_first", "has_hypotheses", "expected"),
    [
        ({}, False, False, InvestigationStage.SYMPTOM_VERIFICATION),
        ({"symptom_verified": True}, False, False, InvestigationStage.HYPOTHESIS_FORMULATION),
        ({"symptom_verified": True}, False, True, InvestigationStage.HYPOTHESIS_VALIDATION),
        (
            {"symptom_verified": True, "root_cause_identified": True},
            False,
            True,
            InvestigationStage.SOLUTION,
        ),
        ({"symptom_verified": True}, True, False, InvestigationStage.SOLUTION),
        (
            {"symptom_verified": True, "mitigation_applied": True},
            True,
            False,
            InvestigationStage.HYPOTHESIS_FORMULATION,
        ),
        (
            {"symptom_verified": True, "mitigation_applied": True, "root_cause_identified": True},
            True,
            True,
            InvestigationStage.SOLUTION,
        ),
        (
            {"symptom_verified": True, "solution_applied": True},
            False,
            False,
            InvestigationStage.SOLUTION,
        ),
        (
            {"symptom_verified": True, "solution_verified": True},
            False,
            False,
            InvestigationStage.SOLUTION,
        ),
    ],
)
def test_stage_follows_the_path_1_2_3_4_or_1_4_2_3_4(
    progress, mitigation_first, has_hypotheses, expected
):
    stage = compute_stage(
        InvestigationProgress(**progress),
        mitigation_first=mitigation_first,
        has_hypotheses=has_hypotheses,
    )
    assert stage is expected


def test_every_stage_has_a_prompt_focus():
    assert set(STAGE_FOCUS) == set(InvestigationStage)
    assert STAGE_FOCUS[InvestigationStage.SOLUTION] is StageFocus.RESOLVING


def test_case_stage_exists_only_while_investigating():
    assert new_case().current_stage is None
    case = investigating_case()
    assert case.current_stage is InvestigationStage.SYMPTOM_VERIFICATION
    case.progress.symptom_verified = True
    add_hypothesis(case)
    assert case.current_stage is InvestigationStage.HYPOTHESIS_VALIDATION
    case.path_selection = PathSelection(
        path=InvestigationPath.MITIGATION_FIRST, auto_selected=True, rationale="matrix"
    )
    assert case.current_stage is InvestigationStage.SOLUTION


def test_case_helpers():
    case = investigating_case()
    assert case.path is None
    assert case.time_to_resolution is None
    assert not case.is_stuck
    case.turns_without_progress = 3
    assert case.is_stuck
    case.add_participant("U2")
    case.add_participant("U2")
    case.add_participant("")
    assert case.participants == ["U2"]
    assert case.find_solution("nope") is None
    assert case.find_request("nope") is None
    case.closed_at = case.created_at
    assert case.time_to_resolution is not None
