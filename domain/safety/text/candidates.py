"""Every place in free text where a command may hide, for the validator to judge.

Fenced blocks first (``domain.safety.text.blocks``), then code on one line, then prose
(``domain.safety.text.prose``). Each part is masked once read, and notes that already replaced a
command are never read again, so checking text twice gives the same text.
"""

from __future__ import annotations

import re

from domain.safety.text.blocks import HEREDOC, Fence, fence_candidates, fences
from domain.safety.text.prose import (
    MASK,
    Candidate,
    code_candidate,
    command_starts,
    inline_code,
    prose_candidates,
)

NOTE_START = "(command withheld:"
_NON_NEWLINE = re.compile(r"[^\n]")
_LINE = re.compile(r"[^\n]+")


def find_candidates(text: str) -> list[Candidate]:
    """The spans of text that may be commands, in order of their start (they may overlap)."""
    masked = _mask_notes(text)
    found: list[Candidate] = []
    for fence in fences(masked):
        found += fence_candidates(masked, fence)
        masked = _mask(masked, fence.start, fence.end)
    for heredoc in _heredocs(masked):
        found += fence_candidates(masked, heredoc)
        masked = _mask(masked, heredoc.start, heredoc.end)
    for code in inline_code(masked):
        candidate = code_candidate(masked, code.start(2), code.end(2))
        if candidate is not None:
            alone = len(code.group(2).split()) == 1
            mention = alone and not _at_command_start(masked, code.start())
            found.append(Candidate(code.start(), code.end(), candidate.commands, mention))
        masked = _mask(masked, code.start(), code.end())
    found += prose_candidates(masked)
    return sorted(found, key=lambda c: (c.start, -c.end))


def _at_command_start(text: str, index: int) -> bool:
    """Whether index is where a command may start on its line (not inside a sentence)."""
    line_start = text.rfind("\n", 0, index) + 1
    line_end = text.find("\n", index)
    line = text[line_start : len(text) if line_end < 0 else line_end]
    return any(start == index - line_start for start, _, _ in command_starts(line))


def _heredocs(text: str) -> list[Fence]:
    """Here-documents outside fences, read like a fenced block from their command's line."""
    found: list[Fence] = []
    for line in _LINE.finditer(text):
        heredoc = HEREDOC.search(line.group())
        if heredoc is None or MASK in line.group() or (found and line.start() < found[-1].end):
            continue
        terminator = re.compile(rf"^[ \t]*{heredoc.group(2)}[ \t]*$", re.M)
        close = terminator.search(text, line.end())
        if close is not None and _feeds(line.group()):
            found.append(Fence(line.start(), close.end(), line.start(), close.end(), None))
    return found


def _feeds(line: str) -> bool:
    """Whether the line is a command reading a here-document (not prose that mentions one)."""
    return any(HEREDOC.search(c) for found in prose_candidates(line) for c in found.commands)


def _mask(text: str, start: int, end: int) -> str:
    return text[:start] + _NON_NEWLINE.sub(MASK, text[start:end]) + text[end:]


def _mask_notes(text: str) -> str:
    """Text with every withheld note masked (a note's reason may hold brackets of its own)."""
    start = text.find(NOTE_START)
    while start >= 0:
        depth, end = 0, start
        while end < len(text) and text[end] != "\n":
            depth += {"(": 1, ")": -1}.get(text[end], 0)
            end += 1
            if depth == 0:
                break
        text = _mask(text, start, end)
        start = text.find(NOTE_START, end)
    return text
