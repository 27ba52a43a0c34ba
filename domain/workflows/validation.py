"""The response parser's rules (seed, "Response Validation"): nothing unvalidated is ever offered.

JSON structure and required fields are checked when the reply is parsed into ``RcaReply``; this
module checks the rest, strategy by strategy: the workflow is one of those offered, the version
matches, confidence is within 0.0–1.0, the risk is low/medium/high, and the parameters are
complete, exactly named, typed and within their constraints. One broken rule anywhere and no
workflow is offered at all: the reply is shown as RCA only and the problems are logged.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum

from domain.workflows.catalog import ParameterValue, RiskLevel, Workflow
from domain.workflows.parameters import ValueFault, shell_problem, value_problem
from domain.workflows.rca import RcaReply, StrategyReply

RISK_ORDER = {RiskLevel.LOW.value: 0, RiskLevel.MEDIUM.value: 1, RiskLevel.HIGH.value: 2}


class Rule(StrEnum):
    """Every validation rule of the seed, plus the system's own check on command safety."""

    STRATEGIES_REQUIRED = "strategies_required"
    RATIONALE_REQUIRED = "rationale_required"
    WORKFLOW_EXISTS = "workflow_exists"
    VERSION_MATCHES = "version_matches"
    CONFIDENCE_RANGE = "confidence_range"
    RISK_LEVEL = "risk_level"
    PARAMETER_REQUIRED = "parameter_required"
    PARAMETER_NAME = "parameter_name"
    PARAMETER_TYPE = "parameter_type"
    PARAMETER_ENUM = "parameter_enum"
    PARAMETER_RANGE = "parameter_range"
    PARAMETER_PATTERN = "parameter_pattern"
    PARAMETER_SAFE = "parameter_safe"


_FAULT_RULES = {
    ValueFault.TYPE: Rule.PARAMETER_TYPE,
    ValueFault.ENUM: Rule.PARAMETER_ENUM,
    ValueFault.RANGE: Rule.PARAMETER_RANGE,
    ValueFault.PATTERN: Rule.PARAMETER_PATTERN,
}


@dataclass(frozen=True)
class Problem:
    """One broken rule: which, where (strategy number, 1-based) and what exactly."""

    rule: Rule
    message: str
    strategy: int | None = None

    def describe(self) -> str:
        """``strategy 2: confidence 1.4 is outside 0.0–1.0``."""
        where = f"strategy {self.strategy}: " if self.strategy is not None else ""
        return f"{where}{self.message}"


@dataclass(frozen=True)
class ValidStrategy:
    """A strategy that passed every rule, with its workflow and clean parameter values."""

    workflow: Workflow
    reply: StrategyReply
    parameters: dict[str, ParameterValue]


@dataclass
class Validation:
    """The verdict on a reply: its problems, or its strategies ranked for people to approve."""

    problems: list[Problem] = field(default_factory=list)
    strategies: list[ValidStrategy] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """Strategies may be offered."""
        return not self.problems and bool(self.strategies)


def validate_reply(reply: RcaReply, offered: Sequence[Workflow]) -> Validation:
    """Check every strategy against the workflows that were offered to the model."""
    if not reply.strategies:
        missing = Problem(Rule.STRATEGIES_REQUIRED, "no strategies: at least one is required")
        return Validation([missing])
    verdict = Validation()
    for number, strategy in enumerate(reply.strategies, 1):
        problems, valid = _check_strategy(strategy, offered, number)
        verdict.problems.extend(problems)
        if valid is not None and not problems:
            verdict.strategies.append(valid)
    if verdict.problems:
        verdict.strategies = []
    verdict.strategies.sort(key=lambda s: (-s.reply.confidence, RISK_ORDER[s.reply.estimated_risk]))
    return verdict


def _check_strategy(
    strategy: StrategyReply, offered: Sequence[Workflow], number: int
) -> tuple[list[Problem], ValidStrategy | None]:
    problems = [Problem(rule, text, number) for rule, text in _scalar_problems(strategy)]
    workflow, missing = _workflow(strategy, offered)
    if workflow is None:
        assert missing is not None
        return [*problems, Problem(missing[0], missing[1], number)], None
    values, found = _parameter_problems(strategy, workflow)
    problems.extend(Problem(rule, text, number) for rule, text in found)
    return problems, ValidStrategy(workflow, strategy, values)


def _scalar_problems(strategy: StrategyReply) -> list[tuple[Rule, str]]:
    found: list[tuple[Rule, str]] = []
    if not 0.0 <= strategy.confidence <= 1.0:
        text = f"confidence {strategy.confidence} is outside 0.0–1.0"
        found.append((Rule.CONFIDENCE_RANGE, text))
    if strategy.estimated_risk not in RISK_ORDER:
        text = f"estimated_risk {strategy.estimated_risk!r} is not low, medium or high"
        found.append((Rule.RISK_LEVEL, text))
    if not strategy.rationale.strip():
        found.append((Rule.RATIONALE_REQUIRED, "rationale is empty"))
    return found


def _workflow(
    strategy: StrategyReply, offered: Sequence[Workflow]
) -> tuple[Workflow | None, tuple[Rule, str] | None]:
    versions = [w for w in offered if w.workflow_id == strategy.workflow_id]
    if not versions:
        names = ", ".join(sorted({w.workflow_id for w in offered})) or "none"
        text = f"workflow {strategy.workflow_id!r} is not one of the workflows offered ({names})"
        return None, (Rule.WORKFLOW_EXISTS, text)
    if strategy.version is None:
        return max(versions, key=lambda w: w.version_tuple), None
    exact = next((w for w in versions if w.version == strategy.version), None)
    if exact is None:
        listed = ", ".join(w.version for w in versions)
        text = (
            f"version {strategy.version!r} of {strategy.workflow_id} was not offered (offered: "
            f"{listed})"
        )
        return None, (Rule.VERSION_MATCHES, text)
    return exact, None


def _parameter_problems(
    strategy: StrategyReply, workflow: Workflow
) -> tuple[dict[str, ParameterValue], list[tuple[Rule, str]]]:
    given = strategy.parameter_values()
    found = [
        (Rule.PARAMETER_NAME, f"parameter {name} is given more than once")
        for name in strategy.repeated_names()
    ]
    for parameter in workflow.parameters:
        if parameter.required and parameter.name not in given:
            text = f"required parameter {parameter.name} is missing"
            found.append((Rule.PARAMETER_REQUIRED, text))
    for name, value in given.items():
        declared = workflow.parameter(name)
        if declared is None:
            found.append((Rule.PARAMETER_NAME, _unknown_name(name, workflow)))
            continue
        fault = value_problem(declared, value)
        if fault is not None:
            found.append((_FAULT_RULES[fault[0]], f"{name}: {fault[1]}"))
        elif (unsafe := shell_problem(value)) is not None:
            found.append((Rule.PARAMETER_SAFE, f"{name}: {unsafe}"))
    return given, found


def _unknown_name(name: str, workflow: Workflow) -> str:
    near = next((p.name for p in workflow.parameters if p.name.lower() == name.lower()), None)
    hint = f" (names are case-sensitive: did you mean {near}?)" if near else ""
    return f"{name} is not a parameter of {workflow.workflow_id}{hint}"
