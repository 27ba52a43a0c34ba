"""Command safety: evidence is collected with read-only commands; a solution's actions are shown
with what they change; destructive commands, and commands it cannot inspect, are never shown but
named with the reason. A tool no table knows is judged by its verbs and flags, labelled "not
checked" (``domain.safety.guess``).

The validator reads a command line the way a shell would (quotes, `;`, `&&`, `|`, `$(...)`,
redirections, `sudo`/`env`/`xargs` prefixes, `sh -c '...'`), classifies every simple command against
the tables and keeps the worst verdict. It never runs anything.

This module is the public face; the work is spread over:

- ``domain.safety.shell``: reading a command line (quotes, substitutions, stages, redirections);
- ``domain.safety.classify``: classifying each simple command, through wrappers and shells;
- ``domain.safety.findings``: findings, the worst of them, and walking a tool's table;
- ``domain.safety.verdicts``: the answer for evidence and the three-way answer for a solution's
  commands (read-only, changes state, withheld), and the notes that replace withheld ones;
- ``domain.safety.rules``: the tables' vocabulary and the checks that apply to every command;
- ``domain.safety.commands``: every known command, gathered from the per-area tables in
  ``domain.safety.programs`` (files, sed, network, http, interfaces, hosts, platforms,
  kubernetes, cloud, infra, databases, sql, secrets, delivery, messaging); what no table knows
  is judged by its verbs and flags (``domain.safety.guess``), else refused (it fails closed);
- ``domain.safety.text``: where commands hide in free text (``candidates``; ``blocks`` for fenced
  code, ``prose`` for prose and inline code, ``words`` for what reads like a command), and
  ``labels`` for saying next to a solution's command what it changes.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace

from domain.investigation.evidence_requests import AcquisitionGuidance
from domain.safety import rules
from domain.safety.classify import classify_text
from domain.safety.findings import MAX_DEPTH, Ctx
from domain.safety.rules import CommandSafety
from domain.safety.shell import PLACEHOLDER, UPSTREAM_KEEP
from domain.safety.text.candidates import find_candidates
from domain.safety.text.labels import labelled
from domain.safety.text.prose import Candidate
from domain.safety.text.words import at_command_position
from domain.safety.verdicts import (
    UNKNOWN_ACTION,
    ActionKind,
    ActionVerdict,
    CommandVerdict,
    action_note,
    action_of,
    withheld_note,
    withheld_notice,
    withheld_reason,
)

__all__ = [
    "MAX_DEPTH",
    "PRIVILEGE_NOTE",
    "UNKNOWN_ACTION",
    "UPSTREAM_KEEP",
    "ActionKind",
    "ActionVerdict",
    "CommandSafety",
    "CommandVerdict",
    "SanitizedGuidance",
    "SanitizedText",
    "classify_action",
    "classify_command",
    "commands_in",
    "reads_as_command",
    "safe_actions",
    "safe_commands",
    "sanitize_guidance",
    "sanitize_text",
    "withheld_note",
    "withheld_notice",
    "withheld_reason",
]

logger = logging.getLogger(__name__)

PRIVILEGE_NOTE = "May require sudo access"
_SHELL_SYNTAX = re.compile(r"[;|&`<>(){}]|\$\(")
_WRAPPED = re.compile(r"`([^`]+)`")


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
    rule = finding.rule
    segment = re.sub(f"{PLACEHOLDER}+", "$(…)", finding.segment)
    return CommandVerdict(
        command, rule.safety, reason, finding.privileged, rule.opaque, rule.guessed, segment
    )


def classify_action(command: str) -> ActionVerdict:
    """A solution's command, three ways: read-only, changes state, or withheld (see verdicts)."""
    return action_of(classify_command(command))


def commands_in(text: str) -> list[str]:
    """Every command line found in text (code blocks, inline code, prose), once each, in order."""
    found = [c for candidate in find_candidates(text) for c in candidate.commands]
    return list(dict.fromkeys(found))


def reads_as_command(text: str) -> bool:
    """Whether text holds anything that reads like a command line (else it is prose)."""
    return bool(find_candidates(text))


def safe_commands(commands: Iterable[str]) -> tuple[list[str], list[CommandVerdict]]:
    """Split commands into those safe to show (in order) and verdicts for the removed ones."""
    kept, removed = _partition(commands)
    return [v.command for v in kept], removed


def safe_actions(commands: Iterable[str]) -> tuple[list[str], list[CommandVerdict]]:
    """A solution's commands in order: checks and actions as written, withheld ones as notes."""
    entries: list[str] = []
    removed: list[CommandVerdict] = []
    for command in (_unwrapped(c) for c in commands if c.strip()):
        action = classify_action(command)
        if action.kind is ActionKind.WITHHELD:
            entries.append(action_note(action))
            removed.append(action.verdict)
        else:
            entries.append(command)
    return entries, removed


def sanitize_text(text: str, *, actions: bool = False) -> SanitizedText:
    """Free text with every command found in it that may not be shown replaced by a note.

    Commands are looked for in fenced and inline code and in prose
    (``domain.safety.text.candidates``); a span that reads like a command is classified, and one
    that may be shown is left as written, unless one that may not is found inside it: then the
    whole span is withheld (it is one command line, and withholding only a part would change what
    the rest reads like). Only read-only commands may be shown, or with ``actions`` (a
    solution's text) also the ones that change state (``domain.safety.verdicts``), put in code
    and labelled with what they change (``domain.safety.text.labels``).
    """
    withheld = _withheld_action if actions else _withheld_evidence
    parts: list[str] = []
    removed: list[CommandVerdict] = []
    position, outer = 0, None
    for candidate in find_candidates(text):
        if candidate.start < position:
            continue
        found = withheld(candidate.commands)
        if found is None or _only_named(candidate, found[0]):
            if outer is None or candidate.start >= outer.end:
                outer = candidate
            continue
        start = candidate.start
        if outer is not None and start < outer.end:
            start, candidate = outer.start, replace(candidate, end=max(outer.end, candidate.end))
        parts += [text[position:start], found[1]]
        removed.append(found[0])
        position, outer = candidate.end, None
    parts.append(text[position:])
    shown = "".join(parts)
    return SanitizedText(labelled(shown, classify_action) if actions else shown, tuple(removed))


def sanitize_guidance(guidance: AcquisitionGuidance) -> SanitizedGuidance:
    """Return a copy of guidance that shows no unsafe command in any field.

    Commands must be read-only (prose given as a command is an alternative); an alternative or a
    file location holding an unsafe command is dropped (and a file location that is a command
    rather than a path); prerequisites, UI locations and the expected output have unsafe commands
    replaced by a note.
    """
    commands = [c for c in guidance.commands if reads_as_command(c)]
    prose = [c for c in guidance.commands if c.strip() and not reads_as_command(c)]
    kept, removed = _partition(commands)
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


def _partition(commands: Iterable[str]) -> tuple[list[CommandVerdict], list[CommandVerdict]]:
    verdicts = [classify_command(_unwrapped(c)) for c in commands if c.strip()]
    shown = [v for v in verdicts if v.looks_read_only]
    return shown, [v for v in verdicts if not v.looks_read_only]


def _unwrapped(command: str) -> str:
    """A command written in backticks is the command (not a substitution of its output)."""
    wrapped = _WRAPPED.fullmatch(command.strip())
    return wrapped.group(1).strip() if wrapped else command.strip()


_Withheld = tuple[CommandVerdict, str]


def _only_named(candidate: Candidate, verdict: CommandVerdict) -> bool:
    """A program named in a sentence (`wget`) is not run, unless it does harm on its own."""
    return candidate.mention and verdict.safety is not CommandSafety.DANGEROUS


def _worst(
    commands: Iterable[str], shown: Callable[[CommandVerdict], bool]
) -> CommandVerdict | None:
    """The most severe verdict among the commands that may not be shown, if any."""
    hidden = [v for v in (classify_command(c) for c in commands if c.strip()) if not shown(v)]
    return max(hidden, key=lambda v: v.safety is CommandSafety.DANGEROUS) if hidden else None


def _withheld_evidence(commands: Iterable[str]) -> _Withheld | None:
    verdict = _worst(commands, lambda v: v.looks_read_only)
    return None if verdict is None else (verdict, withheld_note(verdict))


def _withheld_action(commands: Iterable[str]) -> _Withheld | None:
    verdict = _worst(commands, lambda v: action_of(v).kind is not ActionKind.WITHHELD)
    return None if verdict is None else (verdict, action_note(action_of(verdict)))


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
