"""Free text made safe to show: every command in it that may not be shown becomes a note.

Commands are looked for in fenced and inline code and in prose (``domain.safety.text``); what may
be shown is decided by ``domain.safety.validate`` and said by ``domain.safety.verdicts``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace

from domain.safety.rules import CommandSafety
from domain.safety.text.candidates import find_candidates
from domain.safety.text.labels import labelled
from domain.safety.text.prose import Candidate
from domain.safety.validate import classify_action, classify_command
from domain.safety.verdicts import ActionKind, CommandVerdict, action_note, action_of, withheld_note


@dataclass(frozen=True)
class SanitizedText:
    """Text with every unsafe command replaced by a note, and the verdicts that replaced them."""

    text: str
    removed: tuple[CommandVerdict, ...]


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
