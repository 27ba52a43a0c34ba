"""Command safety: only read-only commands are ever suggested as something to run.

The validator reads a command line the way a shell would (quotes, `;`, `&&`, `|`, `$(...)`,
redirections, `sudo`/`env`/`xargs` prefixes, `sh -c '...'`), classifies every simple command against
the tables and keeps the worst verdict. It never runs anything.

This module is the public face; the work is spread over:

- ``domain.safety_shell``: reading a command line (quotes, substitutions, stages, redirections);
- ``domain.safety_classify``: classifying each simple command, through wrappers and shells;
- ``domain.safety_findings``: findings, the worst of them, and walking a tool's table;
- ``domain.safety_rules``: the tables' vocabulary and the checks that apply to every command;
- ``domain.safety_commands``: every known command, gathered from ``safety_files``,
  ``safety_network``, ``safety_hosts``, ``safety_platforms`` and ``safety_databases``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from domain import safety_rules as rules
from domain.evidence_requests import AcquisitionGuidance
from domain.safety_classify import HANDLERS, classify_text
from domain.safety_commands import COMMANDS, WRAPPERS
from domain.safety_findings import MAX_DEPTH, Ctx, command_name, lookup
from domain.safety_rules import CommandSafety
from domain.safety_shell import PLACEHOLDER, UPSTREAM_KEEP

__all__ = [
    "MAX_DEPTH",
    "PRIVILEGE_NOTE",
    "UPSTREAM_KEEP",
    "CommandSafety",
    "CommandVerdict",
    "SanitizedGuidance",
    "classify_command",
    "safe_commands",
    "sanitize_guidance",
]

PRIVILEGE_NOTE = "May require sudo access"
_LABELLED = re.compile(r"^\s*[A-Za-z][\w .()/-]{0,40}:\s+(\S.*)$", re.S)
_BACKTICKED = re.compile(r"`([^`]+)`")


@dataclass(frozen=True)
class CommandVerdict:
    """The validator's answer for one command line."""

    command: str
    safety: CommandSafety
    reason: str
    needs_privilege: bool

    @property
    def is_safe(self) -> bool:
        """Only read-only commands may be shown as something to run."""
        return self.safety is CommandSafety.READ_ONLY


@dataclass(frozen=True)
class SanitizedGuidance:
    """Guidance with every unsafe command and alternative removed, and what was removed."""

    guidance: AcquisitionGuidance
    removed: tuple[CommandVerdict, ...]


def classify_command(command: str) -> CommandVerdict:
    """Classify one command line; the worst simple command in it decides. Blank is an error."""
    if not command.strip():
        raise ValueError("command is blank")
    finding = classify_text(command, Ctx(segment=command.strip()))
    reason = finding.rule.reason
    if finding.rule is not rules.READS and finding.segment != command.strip():
        reason = f"{reason} (in: {finding.segment})"
    reason = re.sub(f"{PLACEHOLDER}+", "$(…)", reason)
    return CommandVerdict(command, finding.rule.safety, reason, finding.privileged)


def safe_commands(commands: Iterable[str]) -> tuple[list[str], list[CommandVerdict]]:
    """Split commands into those safe to show (in order) and verdicts for the removed ones."""
    kept, removed = _partition(commands)
    return [v.command for v in kept], removed


def sanitize_guidance(guidance: AcquisitionGuidance) -> SanitizedGuidance:
    """Return a copy of guidance keeping only read-only commands and alternatives."""
    kept, removed = _partition(guidance.commands)
    alternatives: list[str] = []
    for alternative in guidance.alternatives:
        unsafe = _unsafe_in_alternative(alternative)
        removed.extend(unsafe)
        if not unsafe:
            alternatives.append(alternative)
    prerequisites = list(guidance.prerequisites)
    if any(v.needs_privilege for v in kept) and _room_for_note(prerequisites):
        prerequisites.append(PRIVILEGE_NOTE)
    data = guidance.model_dump()
    data.update(
        commands=[v.command for v in kept], alternatives=alternatives, prerequisites=prerequisites
    )
    return SanitizedGuidance(AcquisitionGuidance.model_validate(data), tuple(removed))


def _partition(commands: Iterable[str]) -> tuple[list[CommandVerdict], list[CommandVerdict]]:
    verdicts = [classify_command(c) for c in commands if c.strip()]
    return [v for v in verdicts if v.is_safe], [v for v in verdicts if not v.is_safe]


def _room_for_note(prerequisites: list[str]) -> bool:
    metadata = AcquisitionGuidance.model_fields["prerequisites"].metadata
    limit = min(int(m.max_length) for m in metadata if hasattr(m, "max_length"))
    mentioned = any(re.search(r"(?i)\b(?:sudo|root)\b", p) for p in prerequisites)
    return not mentioned and len(prerequisites) < limit


def _unsafe_in_alternative(alternative: str) -> list[CommandVerdict]:
    """Verdicts for the command-like parts of an alternative that are not read-only."""
    candidates = _BACKTICKED.findall(alternative)
    labelled = _LABELLED.match(alternative)
    for text in (alternative, labelled.group(1) if labelled else ""):
        if _looks_like_command(text):
            candidates.append(text)
    verdicts = [classify_command(c) for c in candidates if c.strip()]
    return [v for v in verdicts if not v.is_safe]


def _looks_like_command(text: str) -> bool:
    words = text.split()
    if not words:
        return False
    name = command_name(words[0])
    return any(lookup(table, name) is not None for table in (COMMANDS, WRAPPERS, HANDLERS))
