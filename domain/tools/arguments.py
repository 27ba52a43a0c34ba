"""Arguments the model wants to send to a tool: checked before anything is sent.

They must fit the tool's input schema, name no argument the schema does not declare (unless it
says more are welcome), and any argument named like a command (`command`, `cmd`, `script`, in any
case or compound) must pass the command-safety rules for evidence: read-only commands only. Other
text, such as a PromQL or LogQL query, is not a shell command and is left to the schema.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterator, Mapping
from typing import Any

from domain.safety import classify_command
from domain.tools.schema import schema_problems

COMMAND_WORDS = frozenset({"command", "commands", "cmd", "cmds", "script", "scripts"})
_WORDS = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")


def argument_problems(arguments: Mapping[str, object], schema: Mapping[str, Any]) -> list[str]:
    """Why these arguments may not be sent to a tool with `schema`; empty when they may."""
    problems = _undeclared(arguments, schema) + schema_problems(dict(arguments), schema)
    return problems + command_problems(arguments)


def _undeclared(arguments: Mapping[str, object], schema: Mapping[str, Any]) -> list[str]:
    declared = schema.get("properties", {})
    if schema.get("additionalProperties") not in (None, False) or not isinstance(declared, dict):
        return []
    if schema.get("additionalProperties") is False:
        return []  # the schema check names them
    return [
        f"arguments.{name} is not an argument of this tool"
        for name in arguments
        if name not in declared
    ]


def is_command_name(name: str) -> bool:
    """Whether an argument's name says it holds a command (`command`, `shellCmd`, `run_script`)."""
    return any(word.lower() in COMMAND_WORDS for word in _WORDS.findall(name))


def command_problems(arguments: Mapping[str, object]) -> list[str]:
    """Commands in command-named arguments that are not read-only, each with the reason."""
    problems = []
    for path, name, value in _named_values(arguments, "arguments"):
        if not is_command_name(name):
            continue
        for line in _command_lines(name, value):
            if line is None:
                problems.append(f"{path} must be a command line as text")
                continue
            if not line.strip():
                continue
            verdict = classify_command(line)
            if not verdict.is_safe:
                problems.append(f"{path} is refused: {verdict.reason}")
    return problems


def _named_values(value: object, path: str) -> Iterator[tuple[str, str, object]]:
    if isinstance(value, Mapping):
        for name, item in value.items():
            yield f"{path}.{name}", str(name), item
            yield from _named_values(item, f"{path}.{name}")
    elif isinstance(value, list):
        for index, item in enumerate(value):
            if isinstance(item, Mapping | list):
                yield from _named_values(item, f"{path}[{index}]")


def _command_lines(name: str, value: object) -> list[str | None]:
    """A string is a command line; a list is one argv, or several lines for a plural name."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, list) and all(isinstance(part, str) for part in value):
        if name.lower().endswith("s"):
            return list(value)
        return [shlex.join(value)] if value else []
    return [None]
