"""Every validation rule of the seed, each broken once: no workflow offered, the rule named."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from domain.workflows.catalog import Workflow
from domain.workflows.rca import RcaReply
from domain.workflows.validation import Rule, Validation, validate_reply
from tests.unit.domain.workflows.catalog_data import (
    DISK,
    HPA,
    MEMORY,
    PARAMETERS,
    RESTART,
    ROLLBACK,
    catalog,
    reply,
    strategy,
    workflow,
)

OFFERED = [workflow(RESTART), workflow(ROLLBACK), workflow(ROLLBACK, "1.0.0"), workflow(HPA)]


def check(*strategies: dict[str, Any], offered: list[Workflow] | None = None) -> Validation:
    parsed = RcaReply.model_validate(reply(*strategies))
    return validate_reply(parsed, OFFERED if offered is None else offered)


def with_parameters(workflow_id: str, **changes: Any) -> dict[str, Any]:
    values = {**PARAMETERS[workflow_id], **changes}
    return strategy(workflow_id, parameters={k: v for k, v in values.items() if v is not None})


FAILING: list[tuple[str, dict[str, Any], Rule, str]] = [
    ("no strategies", {}, Rule.STRATEGIES_REQUIRED, "at least one is required"),
    (
        "empty rationale",
        strategy(rationale="  "),
        Rule.RATIONALE_REQUIRED,
        "rationale is empty",
    ),
    (
        "workflow not offered",
        strategy(DISK, version="1.0.0"),
        Rule.WORKFLOW_EXISTS,
        "'clean-node-disk-space' is not one of the workflows offered",
    ),
    (
        "invented workflow",
        strategy(RESTART, workflow_id="delete-namespace"),
        Rule.WORKFLOW_EXISTS,
        "'delete-namespace' is not one of the workflows offered",
    ),
    (
        "wrong version",
        strategy(ROLLBACK, version="2.0.0"),
        Rule.VERSION_MATCHES,
        "version '2.0.0' of rollback-deployment was not offered (offered: 1.1.0, 1.0.0)",
    ),
    ("confidence above 1", strategy(confidence=1.4), Rule.CONFIDENCE_RANGE, "1.4 is outside"),
    ("negative confidence", strategy(confidence=-0.1), Rule.CONFIDENCE_RANGE, "-0.1 is outside"),
    (
        "risk outside the enum",
        strategy(estimated_risk="minimal"),
        Rule.RISK_LEVEL,
        "'minimal' is not low, medium or high",
    ),
    (
        "required parameter missing",
        with_parameters(RESTART, TARGET_DEPLOYMENT=None),
        Rule.PARAMETER_REQUIRED,
        "required parameter TARGET_DEPLOYMENT is missing",
    ),
    (
        "required parameter null",
        strategy(parameters={"TARGET_NAMESPACE": "payments", "TARGET_DEPLOYMENT": None}),
        Rule.PARAMETER_REQUIRED,
        "required parameter TARGET_DEPLOYMENT is missing",
    ),
    (
        "name in the wrong case",
        strategy(parameters={"TARGET_NAMESPACE": "payments", "target_deployment": "api"}),
        Rule.PARAMETER_NAME,
        "target_deployment is not a parameter of restart-crashlooping-deployment (names are "
        "case-sensitive: did you mean TARGET_DEPLOYMENT?)",
    ),
    (
        "integer given as a string",
        with_parameters(HPA, MIN_REPLICAS="6"),
        Rule.PARAMETER_TYPE,
        "MIN_REPLICAS: expected integer, got string '6'",
    ),
    (
        "value outside the enum",
        strategy(DISK, parameters={**PARAMETERS[DISK], "JOURNAL_MAX_SIZE": "50G"}),
        Rule.PARAMETER_ENUM,
        "JOURNAL_MAX_SIZE: '50G' is not one of the allowed values",
    ),
    (
        "integer below its minimum",
        with_parameters(HPA, MIN_REPLICAS=0),
        Rule.PARAMETER_RANGE,
        "MIN_REPLICAS: 0 is below the minimum 1",
    ),
    (
        "integer above its maximum",
        with_parameters(HPA, MAX_REPLICAS=500),
        Rule.PARAMETER_RANGE,
        "MAX_REPLICAS: 500 is above the maximum 100",
    ),
    (
        "string not matching its pattern",
        with_parameters(RESTART, TARGET_NAMESPACE="Payments_Prod"),
        Rule.PARAMETER_PATTERN,
        "TARGET_NAMESPACE: 'Payments_Prod' does not match the pattern",
    ),
]


@pytest.mark.parametrize(
    ("broken", "rule", "message"),
    [pytest.param(s, r, m, id=name) for name, s, r, m in FAILING],
)
def test_a_reply_breaking_a_rule_offers_no_workflow_and_names_the_rule(
    broken: dict[str, Any], rule: Rule, message: str
) -> None:
    strategies = [broken] if broken else []
    enum_case = rule is Rule.PARAMETER_ENUM
    verdict = check(*strategies, offered=[*OFFERED, workflow(DISK)] if enum_case else None)

    assert not verdict.ok
    assert verdict.strategies == []
    assert any(p.rule is rule and message in p.describe() for p in verdict.problems)
    # A misnamed parameter also leaves the correctly named one missing; nothing else fails.
    assert {p.rule for p in verdict.problems} <= {rule, Rule.PARAMETER_REQUIRED}


def test_every_rule_of_the_seed_is_exercised_by_a_failing_reply() -> None:
    exercised = {rule for _, _, rule, _ in FAILING}

    assert exercised == set(Rule) - {Rule.PARAMETER_SAFE}


def test_a_value_that_would_change_the_command_line_is_refused_even_if_the_pattern_allows_it() -> (
    None
):
    data = workflow(MEMORY).model_dump(mode="json")
    for parameter in data["parameters"]:
        if parameter["name"] == "MEMORY_LIMIT":
            parameter["pattern"] = ".+"
    loose = Workflow.model_validate(data)

    verdict = check(with_parameters(MEMORY, MEMORY_LIMIT="1Gi && reboot"), offered=[loose])

    assert [p.rule for p in verdict.problems] == [Rule.PARAMETER_SAFE]
    assert "not allowed in a command" in verdict.problems[0].message


def test_one_broken_strategy_withholds_the_valid_ones_too() -> None:
    verdict = check(strategy(), strategy(ROLLBACK, confidence=2.0))

    assert not verdict.ok
    assert verdict.strategies == []
    assert [p.strategy for p in verdict.problems] == [2]


def test_a_valid_reply_is_ranked_by_confidence_then_lower_risk() -> None:
    verdict = check(
        strategy(ROLLBACK, confidence=0.6, estimated_risk="low"),
        strategy(RESTART, confidence=0.8, estimated_risk="medium"),
        strategy(HPA, confidence=0.8, estimated_risk="low"),
    )

    assert verdict.ok
    assert [s.workflow.workflow_id for s in verdict.strategies] == [HPA, RESTART, ROLLBACK]
    assert verdict.strategies[0].parameters == PARAMETERS[HPA]


def test_without_a_version_the_newest_offered_version_is_taken() -> None:
    verdict = check(strategy(ROLLBACK, version=None))

    assert verdict.ok
    assert verdict.strategies[0].workflow.version == "1.1.0"


def test_an_older_offered_version_may_be_named() -> None:
    verdict = check(strategy(ROLLBACK, version="1.0.0"))

    assert verdict.strategies[0].workflow.version == "1.0.0"


def test_optional_null_parameters_are_dropped() -> None:
    verdict = check(strategy(parameters={**PARAMETERS[RESTART], "UNUSED": None}))

    assert verdict.ok
    assert verdict.strategies[0].parameters == PARAMETERS[RESTART]


@pytest.mark.parametrize(
    "missing", ["analysis_summary", "root_cause_assessment", "rca_severity", "context_used"]
)
def test_json_missing_a_required_field_does_not_parse(missing: str) -> None:
    data = reply(strategy())
    del data[missing]

    with pytest.raises(ValidationError, match=missing):
        RcaReply.model_validate(data)


def test_the_whole_catalog_is_reachable_for_validation() -> None:
    assert all(catalog().get(w.workflow_id, w.version) is w for w in catalog())


def test_a_parameter_named_twice_is_refused() -> None:
    twice = [
        {"name": "TARGET_NAMESPACE", "value": "payments"},
        {"name": "TARGET_DEPLOYMENT", "value": "payments-api"},
        {"name": "TARGET_DEPLOYMENT", "value": "checkout-api"},
    ]

    verdict = check(strategy(RESTART, parameters=twice))

    assert verdict.strategies == []
    (problem,) = verdict.problems
    assert problem.rule is Rule.PARAMETER_NAME
    assert problem.describe() == "strategy 1: parameter TARGET_DEPLOYMENT is given more than once"
