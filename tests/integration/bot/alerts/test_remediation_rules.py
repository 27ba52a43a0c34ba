"""A reply whose strategies break a rule of the catalog is shown as RCA only, logged, and offers
nothing to approve."""

from __future__ import annotations

import logging
from typing import Any

import pytest

from domain.workflows.validation import Rule
from tests.alerts import crash_looping
from tests.integration.bot.alerts.alert_harness import (
    alert_messages,
    analysis,
    post_alert,
    thread_text,
    with_strategy_buttons,
)
from tests.integration.bot.alerts.remediation_harness import strategies_of
from tests.integration.bot.harness import BotHarness
from tests.unit.domain.workflows.catalog_data import (
    DISK,
    DRAIN,
    HPA,
    PARAMETERS,
    RESTART,
    ROLLBACK,
    strategy,
)


def parameters(base: str, **changes: Any) -> dict[str, Any]:
    values = {**PARAMETERS[base], **changes}
    return {name: value for name, value in values.items() if value is not None}


# For the crash-looping alert (production, P1, medium risk tolerance) the catalog search offers
# the newest versions of restart, rollback, HPA, memory and disk: not the node drain (high risk).
BROKEN: list[tuple[Rule, dict[str, Any] | None, str]] = [
    (Rule.STRATEGIES_REQUIRED, None, "no strategies: at least one is required"),
    (Rule.RATIONALE_REQUIRED, strategy(rationale=" "), "rationale is empty"),
    (
        Rule.WORKFLOW_EXISTS,
        strategy(DRAIN),
        "workflow 'cordon-drain-node' is not one of the workflows offered",
    ),
    (
        Rule.VERSION_MATCHES,
        strategy(ROLLBACK, version="1.0.0"),
        "version '1.0.0' of rollback-deployment was not offered (offered: 1.1.0)",
    ),
    (Rule.CONFIDENCE_RANGE, strategy(confidence=1.7), "confidence 1.7 is outside 0.0–1.0"),
    (Rule.RISK_LEVEL, strategy(estimated_risk="severe"), "'severe' is not low, medium or high"),
    (
        Rule.PARAMETER_REQUIRED,
        strategy(parameters=parameters(RESTART, TARGET_DEPLOYMENT=None)),
        "required parameter TARGET_DEPLOYMENT is missing",
    ),
    (
        Rule.PARAMETER_NAME,
        strategy(parameters={**PARAMETERS[RESTART], "Target_Namespace": "payments"}),
        "Target_Namespace is not a parameter of restart-crashlooping-deployment",
    ),
    (
        Rule.PARAMETER_TYPE,
        strategy(HPA, parameters=parameters(HPA, MIN_REPLICAS="6")),
        "MIN_REPLICAS: expected integer, got string '6'",
    ),
    (
        Rule.PARAMETER_ENUM,
        strategy(DISK, parameters=parameters(DISK, JOURNAL_MAX_SIZE="50G")),
        "JOURNAL_MAX_SIZE: '50G' is not one of the allowed values",
    ),
    (
        Rule.PARAMETER_RANGE,
        strategy(HPA, parameters=parameters(HPA, MAX_REPLICAS=500)),
        "MAX_REPLICAS: 500 is above the maximum 100",
    ),
    (
        Rule.PARAMETER_PATTERN,
        strategy(parameters=parameters(RESTART, TARGET_NAMESPACE="Payments_Prod")),
        "TARGET_NAMESPACE: 'Payments_Prod' does not match the pattern",
    ),
]


def test_every_rule_of_the_seed_is_broken_once_end_to_end() -> None:
    # PARAMETER_SAFE is the system's own rule on top of the seed's: unit-tested, since every
    # string parameter of the test catalog has a pattern that already refuses such values.
    assert {rule for rule, _, _ in BROKEN} == set(Rule) - {Rule.PARAMETER_SAFE}


@pytest.mark.parametrize(
    ("broken", "problem"), [pytest.param(s, p, id=r.value) for r, s, p in BROKEN]
)
async def test_a_reply_that_breaks_a_rule_is_shown_as_rca_only_logged_and_offers_nothing(
    bot: BotHarness,
    caplog: pytest.LogCaptureFixture,
    broken: dict[str, Any] | None,
    problem: str,
) -> None:
    bot.llm.script(*analysis(*([broken] if broken else [])))

    with caplog.at_level(logging.WARNING, logger="domain.workflows.planner"):
        await post_alert(bot, crash_looping())
        await bot.settle(expect=2)

    thread_ts = str(alert_messages(bot)[0]["ts"])
    thread = thread_text(bot, thread_ts)
    assert with_strategy_buttons(bot, thread_ts) == []
    assert "Root-cause analysis" in thread
    assert "No workflow offered" in thread
    assert problem in thread
    assert await strategies_of(bot, thread_ts) == []
    logged = [r for r in caplog.records if "failed validation" in r.message]
    assert any(problem in p for r in logged for p in r.problems)  # type: ignore[attr-defined]
    case = await bot.case(thread_ts)
    [entry] = [
        e
        for e in await bot.runtime.repositories.audit.list_for_case(case.case_id)
        if e.action == "workflow.analysed"
    ]
    assert entry.detail["outcome"] == "rca_only"
    assert any(problem in p for p in entry.detail["problems"])
    assert entry.detail["reply"].startswith('{"analysis_summary"'), "the original reply is kept"
