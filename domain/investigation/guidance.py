"""An evidence request's acquisition guidance made safe to show, by the command-safety validator.

Commands must be read-only (prose given as a command is an alternative); an alternative or a file
location holding an unsafe command is dropped (and a file location that is a command rather than a
path); prerequisites, UI locations and the expected output have unsafe commands replaced by a
note. The validator (``domain.safety``) knows nothing of evidence requests: it reads plain text.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable
from dataclasses import dataclass

from domain.investigation.evidence_requests import AcquisitionGuidance
from domain.safety import (
    CommandVerdict,
    at_command_position,
    partition_commands,
    reads_as_command,
    sanitize_text,
)

logger = logging.getLogger(__name__)

PRIVILEGE_NOTE = "May require sudo access"
_SHELL_SYNTAX = re.compile(r"[;|&`<>(){}]|\$\(")


@dataclass(frozen=True)
class SanitizedGuidance:
    """Guidance with every unsafe command and alternative removed, and what was removed."""

    guidance: AcquisitionGuidance
    removed: tuple[CommandVerdict, ...]


def sanitize_guidance(guidance: AcquisitionGuidance) -> SanitizedGuidance:
    """Return a copy of guidance that shows no unsafe command in any field.

    Commands must be read-only (prose given as a command is an alternative); an alternative or a
    file location holding an unsafe command is dropped (and a file location that is a command
    rather than a path); prerequisites, UI locations and the expected output have unsafe commands
    replaced by a note.
    """
    commands = [c for c in guidance.commands if reads_as_command(c)]
    prose = [c for c in guidance.commands if c.strip() and not reads_as_command(c)]
    kept, removed = partition_commands(commands)
    room = _limit("alternatives")
    alternatives = _drop_unsafe([*guidance.alternatives, *prose][:room], removed)
    files = _file_locations(guidance.file_locations, removed)
    prerequisites = _scrubbed(guidance.prerequisites, removed)
    if any(v.needs_privilege for v in kept) and _room_for_note(prerequisites):
        prerequisites.append(PRIVILEGE_NOTE)
    expected = _scrubbed([guidance.expected_output or ""], removed)[0]
    data = guidance.model_dump()
    data.update(
        commands=[v.command for v in kept],
        alternatives=alternatives,
        prerequisites=prerequisites,
        file_locations=files,
        ui_locations=_scrubbed(guidance.ui_locations, removed),
        expected_output=expected if expected and len(expected) <= _EXPECTED_LIMIT else None,
    )
    return SanitizedGuidance(AcquisitionGuidance.model_validate(data), tuple(removed))


def _limit(name: str) -> int:
    metadata = AcquisitionGuidance.model_fields[name].metadata
    return min(int(m.max_length) for m in metadata if hasattr(m, "max_length"))


_EXPECTED_LIMIT = _limit("expected_output")


def _room_for_note(prerequisites: list[str]) -> bool:
    limit = _limit("prerequisites")
    mentioned = any(re.search(r"(?i)\b(?:sudo|root)\b", p) for p in prerequisites)
    return not mentioned and len(prerequisites) < limit


def _drop_unsafe(texts: Iterable[str], removed: list[CommandVerdict]) -> list[str]:
    kept = []
    for text in texts:
        unsafe = sanitize_text(text).removed
        removed.extend(unsafe)
        if not unsafe:
            kept.append(text)
    return kept


def _scrubbed(texts: Iterable[str], removed: list[CommandVerdict]) -> list[str]:
    results = [sanitize_text(text) for text in texts]
    removed.extend(v for result in results for v in result.removed)
    return [result.text for result in results]


def _file_locations(locations: Iterable[str], removed: list[CommandVerdict]) -> list[str]:
    """Paths only: an entry that holds an unsafe command, or is a command, is dropped."""
    kept = []
    for location in locations:
        if _is_path(location) or (_drop_unsafe([location], removed) and not _is_command(location)):
            kept.append(location)
    return kept


def _is_path(location: str) -> bool:
    """One word and no shell syntax: a path as written (`~/.kube/config`, `/usr/bin/kubectl`)."""
    return len(location.split()) == 1 and not _SHELL_SYNTAX.search(location)


def _is_command(location: str) -> bool:
    """A file location that is a command line, not a path (a path to a program alone is a path)."""
    command = at_command_position(location.split())
    if command:
        logger.warning("file location dropped: it is a command, not a path")
    return command
