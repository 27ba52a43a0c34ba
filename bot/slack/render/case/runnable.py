"""Commands as people see them: in code to copy, each with what it does when that matters.

Three honest states (``domain.safety``): a checked read-only command is code to run; one that
changes state is code followed by what it changes, for a person to run if they agree; a withheld
one is its note, never code. A command judged only by its verbs and flags says "not checked".
"""

from __future__ import annotations

from itertools import groupby

from bot.slack.render.text import code_block, escape
from domain.safety import classify_action, withheld_reason


def commands_text(commands: list[str]) -> str:
    """Runs of commands with the same label in one code block each, the label below it."""
    parts: list[str] = []
    for label, run in groupby(commands, key=_label):
        lines = list(run)
        if label is None:
            parts.append(code_block(lines))
        elif label == _NOTE:
            parts += [f"_{escape(line)}_" for line in lines]
        else:
            parts += [code_block(lines), f"_↳ {escape(label)}_"]
    return "\n".join(parts)


def unchecked(commands: list[str]) -> list[str]:
    """The commands judged only by their verbs and flags (shown apart, labelled not checked)."""
    return [c for c in commands if withheld_reason(c) is None and not _checked(c)]


_NOTE = "\0note"


def _label(command: str) -> str | None:
    if withheld_reason(command) is not None:
        return _NOTE
    return classify_action(command).label if command.strip() else None


def _checked(command: str) -> bool:
    return not command.strip() or classify_action(command).checked
