"""What the model asks for: one tool run, named as in the catalogue, with arguments as JSON text.

Arguments travel as a JSON string because strict structured-output providers refuse free-form
objects in a reply schema; `resolve` turns a request into the server, tool and arguments to call,
or one sentence saying why it cannot be (the model reads it and may correct itself).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from domain.tools.policy import ToolSpec

MAX_ARGUMENTS_CHARS = 4_000


class ToolRequest(BaseModel):
    """A tool run the model asks for; a person says yes first unless its server is trusted."""

    model_config = ConfigDict(frozen=True, use_attribute_docstrings=True)

    name: str = Field(max_length=64)
    """The tool's name exactly as the catalogue gives it (`server__tool`)."""
    arguments: str = Field(default="{}", max_length=MAX_ARGUMENTS_CHARS)
    """The arguments as one JSON object, matching the tool's input schema."""
    reason: str = Field(max_length=300)
    """One sentence: what this run would show and why it matters now."""


@dataclass(frozen=True)
class ResolvedRequest:
    """A request matched to its catalogue entry, ready for `ToolsPort.call`."""

    spec: ToolSpec
    arguments: dict[str, Any]


def resolve(request: ToolRequest, catalogue: Sequence[ToolSpec]) -> ResolvedRequest | str:
    """The entry and arguments a request names, or a sentence saying why it names none."""
    spec = next((entry for entry in catalogue if entry.name == request.name), None)
    if spec is None:
        return f"No tool named {request.name!r} is offered."
    try:
        arguments = json.loads(request.arguments or "{}")
    except json.JSONDecodeError as exc:
        return f"The arguments for {request.name} are not valid JSON ({exc.msg})."
    if not isinstance(arguments, dict):
        return f"The arguments for {request.name} must be one JSON object."
    return ResolvedRequest(spec, arguments)
