"""The validator's answers for command lines: one command, a solution's action, a list of either.

A command line is read the way a shell would (``domain.safety.shell``), every simple command in it
is classified (``domain.safety.classify``) and the worst one decides. Commands found in free text
are gathered by ``domain.safety.text.candidates``. Nothing is ever run.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from domain.safety import rules
from domain.safety.classify import classify_text
from domain.safety.findings import Ctx
from domain.safety.shell import PLACEHOLDER
from domain.safety.text.candidates import find_candidates
from domain.safety.verdicts import (
    ActionKind,
    ActionVerdict,
    CommandVerdict,
    action_note,
    action_of,
)

_WRAPPED = re.compile(r"`([^`]+)`")


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


def partition_commands(
    commands: Iterable[str],
) -> tuple[list[CommandVerdict], list[CommandVerdict]]:
    """The verdicts of the commands safe to show as evidence (in order), and of the others.

    Blank commands are skipped; a command written in backticks is the command inside them.
    """
    verdicts = [classify_command(_unwrapped(c)) for c in commands if c.strip()]
    shown = [v for v in verdicts if v.looks_read_only]
    return shown, [v for v in verdicts if not v.looks_read_only]


def safe_commands(commands: Iterable[str]) -> tuple[list[str], list[CommandVerdict]]:
    """Split commands into those safe to show (in order) and verdicts for the removed ones."""
    kept, removed = partition_commands(commands)
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


def _unwrapped(command: str) -> str:
    """A command written in backticks is the command (not a substitution of its output)."""
    wrapped = _WRAPPED.fullmatch(command.strip())
    return wrapped.group(1).strip() if wrapped else command.strip()
