"""Which tools may run: allowlisted, not excluded, and not annotated as changing anything.

A server offers nothing without `includeTools`. A tool annotated `destructiveHint: true` or
`readOnlyHint: false` never runs, even when allowlisted: it is refused when the server starts, with
a sentence naming it. Annotations are the server's own word, so they can only take a tool away;
the allowlist is the person's word, and `trust` never widens either.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from domain.tools.config import ServerConfig

MAX_DESCRIPTION_CHARS = 1_000
"""A tool's description goes into every prompt; a server cannot fill the context with one."""
_NAME_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")


class ToolInfo(BaseModel):
    """What a server says about one of its tools."""

    model_config = ConfigDict(frozen=True)

    name: str
    description: str = ""
    input_schema: dict[str, Any] = Field(default_factory=dict)
    read_only_hint: bool | None = None
    destructive_hint: bool | None = None


class Availability(StrEnum):
    """Why a tool may or may not run."""

    ALLOWED = "allowed"
    NOT_ALLOWLISTED = "not in includeTools"
    EXCLUDED = "in excludeTools"
    DESTRUCTIVE = "annotated as changing things"


class ToolSpec(BaseModel):
    """A tool the model may ask for: its server, name, purpose and argument schema."""

    model_config = ConfigDict(frozen=True)

    server: str
    tool: str
    name: str
    """Unique across servers and safe for every provider's function names: `server__tool`."""
    description: str
    input_schema: dict[str, Any]
    trusted: bool
    """The operator set `trust`: calls need no consent (still read-only)."""


def availability(server: ServerConfig, tool: ToolInfo) -> Availability:
    """Decide whether `tool` of `server` may ever run."""
    if tool.name not in server.include_tools:
        return Availability.NOT_ALLOWLISTED
    if tool.name in server.exclude_tools:
        return Availability.EXCLUDED
    if destructive_annotation(tool) is not None:
        return Availability.DESTRUCTIVE
    return Availability.ALLOWED


def destructive_annotation(tool: ToolInfo) -> str | None:
    """The annotation that says the tool changes things, as written, or None."""
    if tool.destructive_hint is True:
        return "destructiveHint: true"
    if tool.read_only_hint is False:
        return "readOnlyHint: false"
    return None


def start_problems(server: ServerConfig, tools: Sequence[ToolInfo]) -> list[str]:
    """Sentences for what the configuration asks and the server cannot safely give."""
    if not server.include_tools:
        return [f"server {server.name!r} has no includeTools, so it offers no tool"]
    offered = {tool.name: tool for tool in tools}
    problems = []
    for name in server.include_tools:
        tool = offered.get(name)
        annotation = None if tool is None else destructive_annotation(tool)
        if tool is None:
            problems.append(f"server {server.name!r} has no tool {name!r} (named in includeTools)")
        elif annotation is not None and name not in server.exclude_tools:
            problems.append(
                f"server {server.name!r}: tool {name!r} is refused, it is annotated"
                f" {annotation}; only read-only tools run, remove it from includeTools"
            )
    return problems


def allowed_specs(server: ServerConfig, tools: Iterable[ToolInfo]) -> list[ToolSpec]:
    """The catalogue entries of the tools of `server` that may run."""
    return [
        ToolSpec(
            server=server.name,
            tool=tool.name,
            name=qualified_name(server.name, tool.name),
            description=tool.description.strip()[:MAX_DESCRIPTION_CHARS],
            input_schema=tool.input_schema,
            trusted=server.trust,
        )
        for tool in tools
        if availability(server, tool) is Availability.ALLOWED
    ]


def qualified_name(server: str, tool: str) -> str:
    """`server__tool`, in the characters and length every provider accepts for a function."""
    return _NAME_UNSAFE.sub("_", f"{server}__{tool}")[:64]
