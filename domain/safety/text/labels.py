"""Saying, next to a command in a solution's text, what it changes: shown in code, labelled.

A command that changes state is written in code (a step written as prose is put in backticks)
and followed by its label, "(↳ changes state: it rolls a workload back)"; one judged only by
its verbs and flags says "not checked". A command in a fenced block gets its label on a line
after the block. A label already there is not written twice, so labelling is idempotent.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from domain.safety.text.blocks import fences
from domain.safety.text.candidates import find_candidates
from domain.safety.text.prose import Candidate
from domain.safety.verdicts import ActionKind, ActionVerdict

ARROW = "↳ "
_PROSE_TAIL = re.compile(r"\s(?:and|then|so|or|but|if|when|until|before|after|while)\s")
Judge = Callable[[str], ActionVerdict]


def labelled(text: str, judge: Judge) -> str:
    """Text with every state-changing command in code and followed by what it changes."""
    blocks = [(f.start, f.end) for f in fences(text)]
    inserts: list[tuple[int, int, str, bool]] = []  # start, end, label, wrap in backticks
    after_block: dict[int, list[str]] = {}
    end = -1
    for candidate in find_candidates(text):
        if candidate.start < end or candidate.mention:
            continue
        found = _label(candidate, judge)
        if found is None:
            continue
        end = candidate.end
        name, label = found
        block = next((b for b in blocks if b[0] <= candidate.start < b[1]), None)
        if block is not None:
            after_block.setdefault(block[1], []).append(f"{ARROW}`{name}` {label}")
        else:
            wrap = text[candidate.start] != "`"
            inserts.append((candidate.start, candidate.end, f"{ARROW}{label}", wrap))
    edits = [_inline(text, *insert) for insert in inserts]
    edits += [_after_block(text, at, labels) for at, labels in after_block.items()]
    for start, stop, replacement in sorted((e for e in edits if e), reverse=True):
        text = text[:start] + replacement + text[stop:]
    return text


def _label(candidate: Candidate, judge: Judge) -> tuple[str, str] | None:
    """The program and label of the riskiest command in a span: a change, checked or not."""
    actions = [judge(c) for c in candidate.commands if c.strip()]
    changes = [a for a in actions if a.kind is ActionKind.CHANGES_STATE and a.label]
    if not changes:
        return None
    action = max(changes, key=lambda a: not a.checked)
    assert action.label is not None
    return action.verdict.name, action.label


_Edit = tuple[int, int, str] | None


def _inline(text: str, start: int, end: int, label: str, wrap: bool) -> _Edit:
    if wrap:  # "run argocd app sync api and watch": the command ends before "and"
        tail = _PROSE_TAIL.search(text, start, end)
        end = tail.start() if tail else end
    note = f" ({label})"
    if text[end:].startswith(note):
        return None
    span = text[start:end]
    shown = f"`{span}`" if wrap and "`" not in span else span
    return start, end, shown + note


def _after_block(text: str, at: int, labels: list[str]) -> _Edit:
    lines = "".join(f"\n{label}" for label in dict.fromkeys(labels))
    if text[at:].startswith(lines):
        return None
    return at, at, lines
