"""The port the turn engine will use to look for itself: a catalogue, and one call at a time."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol

from domain.tools.policy import ToolSpec
from domain.tools.results import ToolResult


class ToolsPort(Protocol):
    """Read-only tools of the team's own systems, behind the rules of `domain.tools`."""

    def catalogue(self) -> Sequence[ToolSpec]:
        """The tools that may run now: allowlisted, read-only, on servers that answered."""
        ...

    async def call(self, *, server: str, tool: str, arguments: Mapping[str, object]) -> ToolResult:
        """Run one tool; every failure is a result with one sentence, never an exception."""
        ...
