"""Every bundled scenario is valid, consistent with itself, answerable, and its sources recorded."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from domain.investigation.evidence_requests import EvidenceRequest
from domain.investigation.verification import (
    InvestigationPath,
    ProblemVerification,
    determine_investigation_path,
)
from evals.engineer import SimulatedEngineer
from evals.matching import hits, says_any
from evals.scenario import SCENARIO_DIR, Kind, Scenario, load_scenario, load_scenarios
from evals.scoring.verdicts import chases_red_herring, claim_correct
from evals.scripted.playbooks import POOR_REQUESTS, Competent, request_for

EVALS = SCENARIO_DIR.parent
SCENARIOS = load_scenarios()
IDS = [s.id for s in SCENARIOS]
MAX_BYTES = 4 * 1024 * 1024


def as_request(data: dict[str, object]) -> EvidenceRequest:
    return EvidenceRequest.model_validate({**data, "created_at_turn": 1})


def test_the_suite_has_enough_scenarios_of_every_kind() -> None:
    kinds = [s.kind for s in SCENARIOS]
    assert len(SCENARIOS) >= 24
    assert kinds.count(Kind.NO_FAULT) >= 2
    assert kinds.count(Kind.INSUFFICIENT_DATA) >= 2
    assert {s.source.kind for s in SCENARIOS} >= {"synthetic", "holmesgpt", "loghub"}
    paths = {s.expected.path for s in SCENARIOS}
    assert paths == {InvestigationPath.MITIGATION_FIRST, InvestigationPath.ROOT_CAUSE}


@pytest.mark.parametrize("scenario", SCENARIOS, ids=IDS)
def test_the_true_root_cause_reads_as_right_and_no_red_herring_does(scenario: Scenario) -> None:
    truth = scenario.truth.statement
    if scenario.kind is Kind.ROOT_CAUSE:
        assert claim_correct(scenario, truth)
    else:
        assert not claim_correct(scenario, truth)
    assert not hits(scenario.truth.forbidden, truth)
    for herring in scenario.red_herrings:
        assert chases_red_herring(scenario, herring.statement)
        assert not claim_correct(scenario, herring.statement)


@pytest.mark.parametrize("scenario", SCENARIOS, ids=IDS)
def test_what_the_bot_must_say_matches_the_truth_of_an_abstaining_scenario(
    scenario: Scenario,
) -> None:
    if scenario.kind is Kind.NO_FAULT:
        assert says_any(scenario.expected.say, f"Nothing is wrong here: {scenario.truth.statement}")
    if scenario.kind is Kind.INSUFFICIENT_DATA:
        missing = "; ".join(u.description for u in scenario.unavailable)
        assert says_any(
            scenario.expected.say, f"I can't determine the root cause without: {missing}"
        )
        assert not says_any(scenario.expected.say, "Root cause: a bad deploy.")


@pytest.mark.parametrize("scenario", SCENARIOS, ids=IDS)
def test_the_expected_path_is_one_the_path_matrix_can_give(scenario: Scenario) -> None:
    s = scenario.situation
    verification = ProblemVerification(
        symptom_statement="x", temporal_state=s.temporal_state, urgency_level=s.urgency
    )
    chosen = determine_investigation_path(verification, s.started_at).path
    assert chosen in (scenario.expected.path, InvestigationPath.USER_CHOICE)


@pytest.mark.parametrize("scenario", SCENARIOS, ids=IDS)
def test_the_engineer_hands_over_exactly_what_a_precise_request_asks_for(
    scenario: Scenario,
) -> None:
    engineer = SimulatedEngineer(scenario)
    for needed in Competent(scenario).needed:
        found = engineer.match(as_request(request_for(needed)))
        if isinstance(found, list):
            assert needed in found
        else:
            assert found is needed


@pytest.mark.parametrize("scenario", SCENARIOS, ids=IDS)
def test_the_poor_investigators_questions_match_nothing_the_engineer_has(
    scenario: Scenario,
) -> None:
    engineer = SimulatedEngineer(scenario)
    for label, text in POOR_REQUESTS:
        request = as_request({"label": label, "description": text, "category": "scope"})
        assert engineer.match(request) is None


def test_every_bundled_file_has_its_origin_and_licence_recorded() -> None:
    with (EVALS / "SOURCES.csv").open(encoding="utf-8") as handle:
        rows = {row["file"]: row for row in csv.DictReader(handle)}
    bundled = {
        str(path.relative_to(EVALS.parent))
        for folder in ("scenarios", "runbooks", "LICENSES")
        for path in (EVALS / folder).rglob("*")
        if path.is_file() and path.parent != SCENARIO_DIR
    }
    assert bundled == set(rows)
    assert all(row["licence"] for row in rows.values())
    assert {row["origin_repository"] for row in rows.values()} >= {
        "robusta-dev/holmesgpt",
        "logpai/loghub",
        "prometheus-operator/runbooks",
    }
    assert all(row["commit"] for row in rows.values() if "/" in row["origin_repository"])


def test_the_bundled_material_stays_small() -> None:
    size = sum(p.stat().st_size for p in EVALS.rglob("*") if p.is_file())
    assert size < MAX_BYTES


def test_a_scenario_whose_file_is_missing_is_refused(tmp_path: Path) -> None:
    source = SCENARIO_DIR / "db-pool-cut.yaml"
    copy = tmp_path / "db-pool-cut.yaml"
    copy.write_text(source.read_text("utf-8"), "utf-8")
    with pytest.raises(ValueError, match="missing files"):
        load_scenario(copy)


def test_a_misspelt_field_or_a_broken_pattern_is_refused(tmp_path: Path) -> None:
    text = (SCENARIO_DIR / "db-pool-cut.yaml").read_text("utf-8")
    misspelt = tmp_path / "db-pool-cut.yaml"
    misspelt.write_text(text.replace("never_suggest:", "never_sugest:"), "utf-8")
    with pytest.raises(ValueError, match="never_sugest"):
        load_scenario(misspelt)
    misspelt.write_text(
        text.replace('forbidden: ["\\\\bdns\\\\b"]', 'forbidden: ["(dns"]'), "utf-8"
    )
    with pytest.raises(ValueError, match="bad pattern"):
        load_scenario(misspelt)
