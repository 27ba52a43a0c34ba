"""Parameter values: type, enum, limits and pattern; and steps filled with approved values."""

from __future__ import annotations

import pytest

from domain.workflows.parameters import (
    ValueFault,
    fill,
    filled_steps,
    shell_problem,
    value_problem,
)
from tests.unit.domain.workflows.catalog_data import DISK, HPA, MEMORY, PARAMETERS, workflow


@pytest.mark.parametrize(
    ("workflow_id", "name", "value", "fault"),
    [
        (HPA, "MIN_REPLICAS", 6, None),
        (HPA, "MIN_REPLICAS", "6", ValueFault.TYPE),
        (HPA, "MIN_REPLICAS", 6.5, ValueFault.TYPE),
        (HPA, "MIN_REPLICAS", True, ValueFault.TYPE),
        (HPA, "MIN_REPLICAS", 0, ValueFault.RANGE),
        (HPA, "MAX_REPLICAS", 101, ValueFault.RANGE),
        (DISK, "JOURNAL_MAX_SIZE", "500M", None),
        (DISK, "JOURNAL_MAX_SIZE", "5G", ValueFault.ENUM),
        (MEMORY, "MEMORY_LIMIT", "2Gi", None),
        (MEMORY, "MEMORY_LIMIT", "2GB", ValueFault.PATTERN),
        (MEMORY, "MEMORY_LIMIT", "2Gi; reboot", ValueFault.PATTERN),
    ],
)
def test_a_value_is_checked_against_its_parameter(
    workflow_id: str, name: str, value: object, fault: ValueFault | None
) -> None:
    parameter = workflow(workflow_id).parameter(name)
    assert parameter is not None

    found = value_problem(parameter, value)

    assert (found[0] if found else None) is fault


def test_the_reason_names_the_constraint() -> None:
    parameter = workflow(HPA).parameter("MAX_REPLICAS")
    assert parameter is not None

    assert value_problem(parameter, 101) == (ValueFault.RANGE, "101 is above the maximum 100")
    assert value_problem(parameter, "12") == (
        ValueFault.TYPE,
        "expected integer, got string '12'",
    )


@pytest.mark.parametrize("value", ["a b", "$(id)", "x;y", "`id`", "a|b", "a>b", "a\nb", "*"])
def test_values_that_could_change_a_command_line_are_refused(value: str) -> None:
    assert shell_problem(value) is not None


@pytest.mark.parametrize("value", ["payments-api", "10.0.0.3", "2Gi", "300s", 6, True])
def test_ordinary_values_may_go_into_a_command(value: object) -> None:
    assert shell_problem(value) is None  # type: ignore[arg-type]


def test_steps_are_filled_with_the_approved_values() -> None:
    steps = filled_steps(workflow(HPA), PARAMETERS[HPA])

    assert steps == [
        "kubectl patch hpa payments-api -n payments --type=merge "
        """-p '{"spec":{"minReplicas":6,"maxReplicas":12}}'"""
    ]


def test_an_unset_optional_placeholder_leaves_no_gap() -> None:
    assert (
        fill("kubectl get pods {{FLAGS}} -n {{NS}}", {"NS": "prod"}) == "kubectl get pods -n prod"
    )
