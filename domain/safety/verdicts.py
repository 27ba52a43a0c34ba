"""The validator's answers: for evidence (read-only or withheld) and for a solution's actions.

Evidence is collected with read-only commands only. A solution's commands are what people will
run themselves, so a command that changes state is shown as an action with what it changes; one
that is destructive, or that the validator cannot inspect, is withheld and named with the reason.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from domain.safety.rules import CommandSafety

NOTE_START = "(command withheld: "
UNKNOWN_ACTION = "FaultMaven does not know what this command does"


@dataclass(frozen=True)
class CommandVerdict:
    """The validator's answer for one command line."""

    command: str
    safety: CommandSafety
    reason: str
    needs_privilege: bool
    opaque: bool = False
    """The validator cannot see what it will do (an unknown program, a script, inline code)."""

    @property
    def is_safe(self) -> bool:
        """Only read-only commands may be shown as evidence to collect."""
        return self.safety is CommandSafety.READ_ONLY

    @property
    def what_it_does(self) -> str:
        """The reason without the part of the command line it is about (never repeated)."""
        return self.reason.partition(" (in: ")[0]


class ActionKind(StrEnum):
    """What a solution's command is to the people who read it."""

    READ_ONLY = "read_only"
    """A check: shown as something to run."""
    CHANGES_STATE = "changes_state"
    """An action: shown with what it changes, for people to run themselves if they agree."""
    WITHHELD = "withheld"
    """Destructive, or unknown to the validator: never shown, only named with the reason."""


@dataclass(frozen=True)
class ActionVerdict:
    """The three-way answer for a command in a solution, and the verdict it comes from."""

    verdict: CommandVerdict
    kind: ActionKind

    @property
    def command(self) -> str:
        """The command as the model wrote it."""
        return self.verdict.command

    @property
    def reason(self) -> str:
        """What it changes, or why it is withheld (reads after "it" unless it is unknown)."""
        if self.kind is ActionKind.WITHHELD and self.verdict.opaque:
            return UNKNOWN_ACTION
        return self.verdict.what_it_does


def action_of(verdict: CommandVerdict) -> ActionVerdict:
    """Read-only stays a check; a known state change is an action; anything else is withheld."""
    if verdict.is_safe:
        return ActionVerdict(verdict, ActionKind.READ_ONLY)
    if verdict.safety is CommandSafety.MUTATING and not verdict.opaque:
        return ActionVerdict(verdict, ActionKind.CHANGES_STATE)
    return ActionVerdict(verdict, ActionKind.WITHHELD)


def withheld_note(verdict: CommandVerdict) -> str:
    """What people see instead of an unsafe command (its reason, never the command itself)."""
    return f"{NOTE_START}it {verdict.what_it_does})"


def action_note(action: ActionVerdict) -> str:
    """What people see instead of a withheld action: "(command withheld: it deletes …)"."""
    if action.reason == UNKNOWN_ACTION:
        return f"{NOTE_START}{UNKNOWN_ACTION})"
    return withheld_note(action.verdict)


def withheld_reason(text: str) -> str | None:
    """The reason in a withheld note ("deletes the namespace and everything in it"), else None."""
    text = text.strip()
    if not (text.startswith(NOTE_START) and text.endswith(")")):
        return None
    return text[len(NOTE_START) : -1].removeprefix("it ")
