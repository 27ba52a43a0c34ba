"""Parameter values against a workflow's schema, and steps with the approved values filled in."""

from __future__ import annotations

import re
from collections.abc import Mapping
from enum import StrEnum

from domain.workflows.catalog import (
    PLACEHOLDER,
    ParameterType,
    ParameterValue,
    Workflow,
    WorkflowParameter,
    type_matches,
)

# A value substituted into a command must stay one shell word: no quoting, separators,
# substitutions, redirections or globs, whatever the catalog's own pattern allows.
_SHELL_SAFE = re.compile(r"^[A-Za-z0-9_.,:/=@%+-]*$")


class ValueFault(StrEnum):
    """Which constraint of the parameter schema a value breaks."""

    TYPE = "type"
    ENUM = "enum"
    RANGE = "range"
    PATTERN = "pattern"


def value_problem(parameter: WorkflowParameter, value: object) -> tuple[ValueFault, str] | None:
    """What is wrong with ``value`` for ``parameter`` (type, enum, min/max, pattern), or None."""
    if not type_matches(parameter.type, value):
        got = f"{_json_type(value)} {value!r}"
        return ValueFault.TYPE, f"expected {parameter.type.value}, got {got}"
    if parameter.enum is not None and value not in parameter.enum:
        allowed = ", ".join(repr(v) for v in parameter.enum)
        return ValueFault.ENUM, f"{value!r} is not one of the allowed values ({allowed})"
    if isinstance(value, int | float) and not isinstance(value, bool):
        return _range_problem(parameter, value)
    pattern = parameter.pattern
    if isinstance(value, str) and pattern is not None and re.fullmatch(pattern, value) is None:
        return ValueFault.PATTERN, f"{value!r} does not match the pattern {pattern}"
    return None


def _range_problem(parameter: WorkflowParameter, value: float) -> tuple[ValueFault, str] | None:
    if parameter.min is not None and value < parameter.min:
        return ValueFault.RANGE, f"{value} is below the minimum {_number(parameter.min)}"
    if parameter.max is not None and value > parameter.max:
        return ValueFault.RANGE, f"{value} is above the maximum {_number(parameter.max)}"
    return None


def shell_problem(value: ParameterValue) -> str | None:
    """Why a value may not be put into a command line, or None."""
    text = _render(value)
    if not _SHELL_SAFE.fullmatch(text):
        return f"{text!r} contains characters that are not allowed in a command"
    return None


def fill(line: str, values: Mapping[str, ParameterValue]) -> str:
    """Replace each ``{{NAME}}``; an unset optional parameter becomes empty."""

    def value(match: re.Match[str]) -> str:
        found = values.get(match.group(1))
        return "" if found is None else _render(found)

    return re.sub(r"\s{2,}", " ", PLACEHOLDER.sub(value, line)).strip()


def filled_steps(workflow: Workflow, values: Mapping[str, ParameterValue]) -> list[str]:
    """The workflow's steps with the values in place (values must have been validated)."""
    return [fill(step, values) for step in workflow.steps]


def filled_verification(workflow: Workflow, values: Mapping[str, ParameterValue]) -> list[str]:
    """The verification commands with the values in place."""
    return [fill(command, values) for command in workflow.verification]


def sample_value(parameter: WorkflowParameter) -> ParameterValue:
    """A plausible value, to read a step template as a command (catalog checks)."""
    if parameter.enum:
        return parameter.enum[0]
    if parameter.type is ParameterType.BOOLEAN:
        return True
    if parameter.type in (ParameterType.INTEGER, ParameterType.NUMBER):
        return int(parameter.min if parameter.min is not None else 1)
    return parameter.name.lower().replace("_", "-")


def _render(value: ParameterValue) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _number(value: float) -> str:
    return str(int(value)) if value.is_integer() else str(value)


def _json_type(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    return type(value).__name__
