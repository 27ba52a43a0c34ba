"""The validator's answers: for evidence (read-only or withheld) and for a solution's actions.

Three honest states. Read-only: shown to run. Changes state: shown in code with what it changes,
for a person to run if they agree. Withheld: destructive, or something the validator cannot
inspect; never shown, but named (the program it runs, never the command line, which could be
copied) with the real reason. A command no table knows is judged by its verbs and flags
(``domain.safety.guess``) and labelled "not checked" whichever state it lands in.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum

from domain.safety.rules import CommandSafety

NOTE_START = "(command withheld: "
UNKNOWN_ACTION = "FaultMaven does not know what this command does"
UNCHECKED = "not checked: "
"""Starts the label of a command judged by its verbs and flags only."""
CHANGES = "changes state: "
"""Starts the label of a command the tables know changes something."""


@dataclass(frozen=True)
class CommandVerdict:
    """The validator's answer for one command line."""

    command: str
    safety: CommandSafety
    reason: str
    needs_privilege: bool
    opaque: bool = False
    """The validator cannot see what it will do (an unknown program, a script, inline code)."""
    guessed: bool = False
    """Judged from its verbs and flags only: shown as "not checked" (``domain.safety.guess``)."""
    segment: str = ""
    """The simple command that decided (the whole line when it is one command)."""

    @property
    def is_safe(self) -> bool:
        """Read-only by the tables: safe to run unattended (a guessed read is not)."""
        return self.safety is CommandSafety.READ_ONLY and not self.guessed

    @property
    def looks_read_only(self) -> bool:
        """Read-only, checked or judged by its verbs: may be shown as something to run."""
        return self.safety is CommandSafety.READ_ONLY

    @property
    def name(self) -> str:
        """The program it runs (`kubectl`): named in notes, where the command line never is."""
        return program_of(self.segment or self.command)

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

    @property
    def checked(self) -> bool:
        """Judged by the tables, not guessed from its verbs and flags."""
        return not self.verdict.guessed

    @property
    def label(self) -> str | None:
        """What people read next to a shown command; None for a checked read-only one."""
        what = self.verdict.what_it_does
        if self.kind is ActionKind.WITHHELD:
            return None
        if not self.checked:
            return f"{UNCHECKED}{what} — run it if you agree"
        if self.kind is ActionKind.CHANGES_STATE:
            return f"{CHANGES}it {what}"
        return None


def action_of(verdict: CommandVerdict) -> ActionVerdict:
    """Read-only stays a check; a state change it can see is an action; the rest is withheld."""
    if verdict.looks_read_only:
        return ActionVerdict(verdict, ActionKind.READ_ONLY)
    if verdict.safety is CommandSafety.MUTATING and not verdict.opaque:
        return ActionVerdict(verdict, ActionKind.CHANGES_STATE)
    return ActionVerdict(verdict, ActionKind.WITHHELD)


def withheld_note(verdict: CommandVerdict) -> str:
    """What people see instead of an unsafe command: its program and the reason, never the line.

    "(command withheld: `kubectl` — it deletes the namespace and everything in it)".
    """
    return f"{NOTE_START}`{verdict.name}` — {_it(verdict)})"


def action_note(action: ActionVerdict) -> str:
    """What people see instead of a withheld action (unknown: "… does not know what `x` does")."""
    if action.reason == UNKNOWN_ACTION:
        return f"{NOTE_START}FaultMaven does not know what `{action.verdict.name}` does)"
    return withheld_note(action.verdict)


def withheld_reason(text: str) -> str | None:
    """The reason in a withheld note ("deletes the namespace and everything in it"), else None."""
    text = text.strip()
    if not (text.startswith(NOTE_START) and text.endswith(")")):
        return None
    body = text[len(NOTE_START) : -1]
    named = _NAMED.match(body)
    return (body[named.end() :] if named else body).removeprefix("it ")


def withheld_notice(verdicts: list[CommandVerdict]) -> str | None:
    """The thread's notice for what was withheld from it: how many, which, and why each.

    "Withheld 2 suggested commands: `kubectl` — it deletes the namespace and everything in it;
    `fooctl` — FaultMaven does not know what it does." None when nothing was withheld.
    """
    if not verdicts:
        return None
    which = dict.fromkeys(f"`{v.name}` — {_why(action_of(v))}" for v in verdicts)
    count = len(verdicts)
    return f"Withheld {count} suggested command{'s' if count > 1 else ''}: {'; '.join(which)}."


def _why(action: ActionVerdict) -> str:
    if action.reason == UNKNOWN_ACTION:
        return "FaultMaven does not know what it does"
    return _it(action.verdict)


def _it(verdict: CommandVerdict) -> str:
    """The reason as a clause: "it deletes pods", or "looks like it …, not checked" (a guess)."""
    if verdict.guessed:
        return f"{verdict.what_it_does}, not checked"
    return f"it {verdict.what_it_does}"


def program_of(command: str) -> str:
    """The program a command line runs (`kubectl`), past assignments and `sudo`-like prefixes."""
    words = [w for w in command.split() if not _ASSIGNMENT.match(w)]
    while len(words) > 1 and words[0] in _PREFIXES:
        words = words[1:]
    if not words:
        return "?"
    return (words[0].strip("`'\"()").rsplit("/", 1)[-1] or words[0])[:40]


_NAMED = re.compile(r"`[^`]*` — ")
_ASSIGNMENT = re.compile(r"^[A-Za-z_]\w*=")
_PREFIXES = frozenset({"sudo", "doas", "env", "nohup", "time", "nice", "command", "exec"})
