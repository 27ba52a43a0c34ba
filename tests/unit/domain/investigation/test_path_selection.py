"""The path-selection matrix: temporal state × urgency decides, the model never does."""

from __future__ import annotations

import pytest

from domain.investigation.verification import (
    InvestigationPath,
    PathSelection,
    ProblemVerification,
    TemporalState,
    UrgencyLevel,
    choose_path,
    determine_investigation_path,
)
from tests.unit.domain.builders import NOW

MF, RC, UC = (
    InvestigationPath.MITIGATION_FIRST,
    InvestigationPath.ROOT_CAUSE,
    InvestigationPath.USER_CHOICE,
)
ON, HIST = TemporalState.ONGOING, TemporalState.HISTORICAL

MATRIX = [
    (ON, UrgencyLevel.CRITICAL, MF, True),
    (ON, UrgencyLevel.HIGH, MF, True),
    (ON, UrgencyLevel.MEDIUM, UC, False),
    (ON, UrgencyLevel.LOW, UC, False),
    (HIST, UrgencyLevel.CRITICAL, UC, False),
    (HIST, UrgencyLevel.HIGH, UC, False),
    (HIST, UrgencyLevel.MEDIUM, RC, True),
    (HIST, UrgencyLevel.LOW, RC, True),
    (ON, UrgencyLevel.UNKNOWN, UC, False),
    (None, UrgencyLevel.CRITICAL, UC, False),
]


@pytest.mark.parametrize(("temporal", "urgency", "path", "auto"), MATRIX)
def test_matrix(temporal, urgency, path, auto):
    pv = ProblemVerification(symptom_statement="s", temporal_state=temporal, urgency_level=urgency)
    selection = determine_investigation_path(pv, NOW)
    assert selection.path is path
    assert selection.auto_selected is auto
    assert selection.temporal_state is temporal
    assert selection.urgency_level is urgency
    assert selection.selected_by == "system"
    assert selection.rationale


def test_auto_selected_paths_name_the_alternative():
    pv = ProblemVerification(
        symptom_statement="s", temporal_state=ON, urgency_level=UrgencyLevel.HIGH
    )
    assert determine_investigation_path(pv, NOW).alternate_path is RC
    pv = ProblemVerification(
        symptom_statement="s", temporal_state=HIST, urgency_level=UrgencyLevel.LOW
    )
    assert determine_investigation_path(pv, NOW).alternate_path is MF


def test_a_person_chooses_a_concrete_path():
    base = PathSelection(path=UC, auto_selected=False, rationale="ambiguous")
    chosen = choose_path(base, RC, by="U1", now=NOW)
    assert (chosen.path, chosen.alternate_path, chosen.selected_by) == (RC, MF, "U1")
    assert choose_path(base, MF, by="U1", now=NOW).alternate_path is RC
    with pytest.raises(ValueError, match="concrete"):
        choose_path(base, UC, by="U1", now=NOW)
