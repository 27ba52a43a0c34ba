"""A reply never claims a tool ran when it did not.

A tool runs only after a person clicks Run (or at once on a trusted server), and its result
comes in a later turn. A model may still write "I queried Prometheus and the error rate is
flat" in the turn that only asked for the run. In a turn that read no tool result, such a sentence
is replaced where it stands by what is true: which run waits for whom. Questions and conditions
("Shall I run the query?", "Once it runs, I'll look") claim nothing and are left alone.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from domain.tools.runs import ToolRun, ToolRunStatus

_SENTENCE = re.compile(r"[^.!?\n]+(?:[.!?]+|\n|$)")
_CONDITIONAL = re.compile(
    r"\?|\b(?:if|once|when|after|shall|should|could|would|can|want|will|may|let me)\b",
    re.IGNORECASE,
)
_RAN = re.compile(
    r"\b(?:I|we)(?:'ve|’ve|\s+have|'m|’m|\s+am)?\s+(?:just\s+|now\s+|already\s+)?"
    r"(?:ran|run|running|queried|querying|executed|executing|pulled|fetched|checked|looked\s+at)\b"
    r"|\b(?:the\s+)?(?:query|tool|run)\s+(?:shows|showed|returned|returns|came\s+back)\b"
    r"|\b(?:results?|output)\s+(?:shows?|showed)\b",
    re.IGNORECASE,
)
_TOOLISH = re.compile(r"\b(?:tools?|query|queried|querying)\b", re.IGNORECASE)


def correct_tool_claims(
    text: str, *, read_results: bool, runs: Sequence[ToolRun], names: Sequence[str]
) -> str:
    """``text`` with each claim that a tool ran replaced, unless this turn read results.

    ``runs`` are the case's open runs; ``names``, the servers and tools offered (a sentence
    naming one, or a tool or query, is about tools).
    """
    if read_results:
        return text
    names = [n.casefold() for n in names if len(n) > 2]
    truth = _truth(runs)
    return _SENTENCE.sub(lambda m: _corrected(m.group(0), names, truth), text)


def _corrected(sentence: str, names: Sequence[str], truth: str) -> str:
    lowered = sentence.casefold()
    about_tools = _TOOLISH.search(sentence) or any(name in lowered for name in names)
    if not about_tools or not _RAN.search(sentence) or _CONDITIONAL.search(sentence):
        return sentence
    ending = "\n" if sentence.endswith("\n") else " "
    return truth + ending


def _truth(runs: Sequence[ToolRun]) -> str:
    waiting = [r for r in runs if r.status is ToolRunStatus.PENDING]
    running = [r for r in runs if r.status is ToolRunStatus.APPROVED]
    if waiting:
        labels = ", ".join(f"{r.label} #{r.number}" for r in waiting)
        return f"No tool has run yet: {labels} waits for someone to click ▶ Run it."
    if running:
        labels = ", ".join(f"{r.label} #{r.number}" for r in running)
        return f"No tool has run yet: {labels} runs next, and its result comes in the next answer."
    return "No tool has run in this turn."
