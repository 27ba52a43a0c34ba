"""The catalog: mandatory labels, parameter schema, versions, label filters and safety checks."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from domain.workflows.catalog import (
    Catalog,
    LabelFilters,
    ParameterType,
    RcaSeverity,
    Workflow,
    WorkflowParameter,
)
from domain.workflows.checks import workflow_problems
from tests.unit.domain.workflows.catalog_data import (
    DISK,
    DRAIN,
    HPA,
    MEMORY,
    RESTART,
    ROLLBACK,
    catalog,
    workflow,
)


def definition(**changes: Any) -> dict[str, Any]:
    data = workflow(RESTART).model_dump(mode="json")
    data.update(changes)
    return data


def test_the_test_catalog_has_six_workflows_for_kubernetes_and_host_problems() -> None:
    latest = {w.workflow_id: w for w in catalog().latest()}

    assert set(latest) == {RESTART, ROLLBACK, HPA, MEMORY, DISK, DRAIN}
    assert {w.labels.component for w in latest.values()} == {"deployment", "hpa", "node"}
    assert len(catalog()) == 7, "two versions of the rollback"


def test_the_newest_version_is_the_default_and_older_ones_stay_reachable() -> None:
    assert workflow(ROLLBACK).version == "1.1.0"
    assert workflow(ROLLBACK, "1.0.0").title == "Roll a deployment back"
    assert catalog().get(ROLLBACK, "9.9.9") is None
    assert catalog().get("no-such-workflow") is None


def test_a_wildcard_severity_means_every_severity() -> None:
    assert workflow(DISK).labels.severity == list(RcaSeverity)


@pytest.mark.parametrize(
    ("filters", "allowed"),
    [
        (LabelFilters(), True),
        (LabelFilters(environment="production"), True),
        (LabelFilters(environment="Production"), True),
        (LabelFilters(environment="staging"), False),
        (LabelFilters(priority="P3"), False),
        (LabelFilters(priority="P1", risk_tolerance="low"), True),
    ],
)
def test_label_filters_match_values_or_wildcards(filters: LabelFilters, allowed: bool) -> None:
    labels = workflow(HPA).labels

    assert all(labels.accepts(k, v) for k, v in filters.items()) is allowed


def test_filters_describe_only_what_is_set() -> None:
    assert LabelFilters().describe() == "none"
    assert LabelFilters(environment="production", priority="P0").describe() == (
        "environment=production, priority=P0"
    )


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"version": "1.0"}, "version"),
        ({"workflow_id": "Not A Slug"}, "workflow_id"),
        ({"steps": []}, "steps"),
        ({"steps": ["kubectl rollout restart deployment/{{NOPE}}"]}, "undeclared parameters: NOPE"),
        ({"unknown_field": 1}, "Extra inputs are not permitted"),
    ],
)
def test_a_malformed_workflow_is_refused(changes: dict[str, Any], message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        Workflow.model_validate(definition(**changes))


@pytest.mark.parametrize(
    ("label", "value", "message"),
    [
        ("severity", ["urgent"], "Input should be 'critical'"),
        ("priority", ["P9"], "priorities must be P0, P1, P2, P3"),
        ("risk_tolerance", ["extreme"], "risk tolerances must be low, medium, high"),
        ("environment", ["prod env"], "not label values"),
    ],
)
def test_label_values_are_checked(label: str, value: list[str], message: str) -> None:
    labels = definition()["labels"] | {label: value}

    with pytest.raises(ValidationError, match=message):
        Workflow.model_validate(definition(labels=labels))


@pytest.mark.parametrize(
    ("parameter", "message"),
    [
        ({"type": "string", "min": 1}, "min/max apply to integer and number parameters only"),
        ({"type": "integer", "min": 5, "max": 1}, "min is greater than max"),
        ({"type": "integer", "pattern": "^[0-9]+$"}, "pattern applies to string parameters only"),
        ({"type": "string", "pattern": "(unclosed"}, "pattern does not compile"),
        ({"type": "integer", "enum": ["a"]}, "are not of type integer"),
        ({"type": "boolean", "enum": [1]}, "are not of type boolean"),
    ],
)
def test_an_inconsistent_parameter_schema_is_refused(
    parameter: dict[str, Any], message: str
) -> None:
    with pytest.raises(ValidationError, match=message):
        WorkflowParameter.model_validate({"name": "X", "description": "x", **parameter})


def test_the_catalog_digest_changes_with_any_workflow() -> None:
    changed = workflow(RESTART).model_copy(update={"title": "Restart it"})
    others = [w for w in catalog() if w.workflow_id != RESTART]

    assert Catalog([*others, changed]).digest() != catalog().digest()
    assert Catalog(list(catalog())).digest() == catalog().digest()


def test_every_workflow_of_the_test_catalog_passes_the_safety_checks() -> None:
    assert [(w.key, workflow_problems(w)) for w in catalog() if workflow_problems(w)] == []


def test_a_dangerous_step_and_a_mutating_check_keep_a_workflow_out() -> None:
    unsafe = Workflow.model_validate(
        definition(
            steps=["rm -rf /var/lib/{{TARGET_DEPLOYMENT}}"],
            verification=["kubectl delete pod x -n {{TARGET_NAMESPACE}}"],
        )
    )

    problems = workflow_problems(unsafe)

    assert any("step 1 is dangerous" in p for p in problems)
    assert any("verification command 1 is not read-only" in p for p in problems)


def test_an_unconstrained_string_in_a_command_keeps_a_workflow_out() -> None:
    parameters = [
        {"name": "TARGET_NAMESPACE", "type": "string", "description": "namespace"},
        {"name": "TARGET_DEPLOYMENT", "type": "string", "description": "d", "enum": ["api"]},
    ]
    loose = Workflow.model_validate(definition(parameters=parameters))

    assert workflow_problems(loose) == [
        "parameter TARGET_NAMESPACE is used in a command but has neither a pattern nor an enum"
    ]


def test_parameter_types_are_read_from_the_yaml_files() -> None:
    hpa = workflow(HPA)
    minimum = hpa.parameter("MIN_REPLICAS")

    assert minimum is not None
    assert minimum.type is ParameterType.INTEGER
    assert (minimum.min, minimum.max) == (1, 50)
    assert hpa.parameter("min_replicas") is None, "names are case-sensitive"
