"""Command safety: only read-only commands are ever suggested as something to run.

The validator reads a command line the way a shell would (quotes, `;`, `&&`, `|`, `$(...)`,
redirections, `sudo`/`env`/`xargs` prefixes, `sh -c '...'`), classifies every simple command against
the tables and keeps the worst verdict. It never runs anything.

This module is the public face; the work is spread over:

- ``domain.safety.shell``: reading a command line (quotes, substitutions, stages, redirections);
- ``domain.safety.classify``: classifying each simple command, through wrappers and shells;
- ``domain.safety.findings``: findings, the worst of them, and walking a tool's table;
- ``domain.safety.rules``: the tables' vocabulary and the checks that apply to every command;
- ``domain.safety.commands``: every known command, gathered from the per-area tables in
  ``domain.safety.programs`` (files, sed, network, http, interfaces, hosts, platforms,
  kubernetes, cloud, infra, databases, sql, secrets); what no table knows is refused (the
  validator fails closed);
- ``domain.safety.text``: where commands hide in free text (``candidates``; ``blocks`` for fenced
  code, ``prose`` for prose and inline code, ``words`` for what reads like a command).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable
from dataclasses import dataclass, replace

from domain.investigation.evidence_requests import AcquisitionGuidance
from domain.safety import rules
from domain.safety.classify import classify_text
from domain.safety.findings import MAX_DEPTH, Ctx
from domain.safety.rules import CommandSafety
from domain.safety.shell import PLACEHOLDER, UPSTREAM_KEEP
from domain.safety.text.candidates import find_candidates
from domain.safety.text.words import at_command_position

__all__ = [
    "MAX_DEPTH",
    "PRIVILEGE_NOTE",
    "UPSTREAM_KEEP",
    "CommandSafety",
    "CommandVerdict",
    "SanitizedGuidance",
    "SanitizedText",
    "classify_command",
    "safe_commands",
    "sanitize_guidance",
    "sanitize_text",
    "withheld_note",
]

logger = logging.getLogger(__name__)

PRIVILEGE_NOTE = "May require sudo access"
_SHELL_SYNTAX = re.compile(r"[;|&`<>(){}]|\$\(")


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
class SanitizedText:
    """Text with every unsafe command replaced by a note, and the verdicts that replaced them."""

    text: str
    removed: tuple[CommandVerdict, ...]


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


def withheld_note(verdict: CommandVerdict) -> str:
    """What people see instead of an unsafe command (its reason, never the command itself)."""
    return f"(command withheld: it {verdict.reason.partition(' (in: ')[0]})"


def sanitize_text(text: str) -> SanitizedText:
    """Free text with every command found in it that is not read-only replaced by a note.

    Commands are looked for in fenced and inline code and in prose
    (``domain.safety.text.candidates``); a span that reads like a command is classified, and one
    that is read-only is left as written, unless an unsafe command is found inside it: then the
    whole span is withheld (it is one command line, and withholding only a part would change what
    the rest reads like).
    """
    parts: list[str] = []
    removed: list[CommandVerdict] = []
    position, outer = 0, None
    for candidate in find_candidates(text):
        if candidate.start < position:
            continue
        verdict = _worst(candidate.commands)
        if verdict is None:
            if outer is None or candidate.start >= outer.end:
                outer = candidate
            continue
        start = candidate.start
        if outer is not None and start < outer.end:
            start, candidate = outer.start, replace(candidate, end=max(outer.end, candidate.end))
        parts += [text[position:start], withheld_note(verdict)]
        removed.append(verdict)
        position, outer = candidate.end, None
    parts.append(text[position:])
    return SanitizedText("".join(parts), tuple(removed))


def sanitize_guidance(guidance: AcquisitionGuidance) -> SanitizedGuidance:
    """Return a copy of guidance that shows no unsafe command in any field.

    Commands must be read-only; an alternative or a file location holding an unsafe command is
    dropped (and a file location that is a command rather than a path); prerequisites, UI
    locations and the expected output have unsafe commands replaced by a note.
    """
    kept, removed = _partition(guidance.commands)
    alternatives = _drop_unsafe(guidance.alternatives, removed)
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


def _partition(commands: Iterable[str]) -> tuple[list[CommandVerdict], list[CommandVerdict]]:
    verdicts = [classify_command(c) for c in commands if c.strip()]
    return [v for v in verdicts if v.is_safe], [v for v in verdicts if not v.is_safe]


def _worst(commands: Iterable[str]) -> CommandVerdict | None:
    """The most severe verdict among the commands that are not read-only, if any."""
    unsafe = [v for v in (classify_command(c) for c in commands if c.strip()) if not v.is_safe]
    return max(unsafe, key=lambda v: v.safety is CommandSafety.DANGEROUS) if unsafe else None


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
