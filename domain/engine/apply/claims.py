"""What the model's prose claims about the case, held against what the case did.

Every status change needs a person's Yes, so the model cannot resolve or close a case; yet it may
write "I'm marking the case resolved" when the system only asked people to confirm it, or refused
to ask. Such a sentence is corrected where it stands: replaced by what actually happened, so
nobody reads a claim the case contradicts (a note at the foot of the reply is easily missed).

A claim is a sentence stating the change as done or being done: "I've marked it resolved",
"Marking this as closed", "The case is now resolved". Questions and conditions ("Shall I resolve
it?", "Once you confirm, I'll close it") claim nothing and are left alone.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from domain.lifecycle.status import CaseStatus

_VERBS = {
    CaseStatus.RESOLVED: r"resolv(?:e|ed|es|ing)",
    CaseStatus.CLOSED: r"clos(?:e|ed|es|ing)",
}
"""The statuses a reply could wrongly claim, and the verbs that claim them."""
_NAMES = {CaseStatus.RESOLVED: "resolved", CaseStatus.CLOSED: "closed"}
_I = (
    r"(?:I(?:'m|’m|\s+am|'ve|’ve|\s+have|'ll|’ll|\s+will)?\s+"
    r"(?:now\s+|just\s+|already\s+)?(?:going\s+to\s+)?)?"
)
"""Who claims: "I", "I'm", "I've now", "I'm going to" (or nobody: "Marking it resolved")."""
_CASE = r"(?:the\s+|this\s+)?(?:case|incident|ticket|it|this)\b"
_SENTENCE = re.compile(r"[^.!?\n]+(?:[.!?]+|\n|$)")
_CONDITIONAL = re.compile(
    r"\?|\b(?:if|once|when|after|shall|should|could|would|can|want|ready to|may|confirm\w*)\b",
    re.IGNORECASE,
)


def _claim(verb: str) -> re.Pattern[str]:
    """A sentence stating the change as done or under way: "I've resolved the case", "Marking
    it as closed", "The incident is now resolved"."""
    doing = rf"^\s*{_I}(?:now\s+)?(?:{verb}\s+{_CASE}|(?:mark|set|mov)\w*\s+{_CASE}.*?\b{verb}\b)"
    state = (
        rf"\b(?:case|incident|ticket)\s+(?:is|has\s+been|was|'s|’s)\s+(?:now\s+)?"
        rf"(?:marked\s+|set\s+)?(?:as\s+|to\s+)?{verb}\b"
    )
    return re.compile(rf"{doing}|{state}", re.IGNORECASE)


_CLAIMS = {status: _claim(verb) for status, verb in _VERBS.items()}


@dataclass(frozen=True)
class Refusal:
    """A status change the model asked for and the rules refused to put to people."""

    to_status: CaseStatus
    reason: str
    note: str = ""
    """The note the reply carries about it (dropped once a corrected sentence says the same)."""


def correct_claims(
    text: str,
    *,
    status: CaseStatus,
    asked: Sequence[CaseStatus],
    refused: Sequence[Refusal] = (),
) -> str:
    """``text`` with each sentence claiming a status the case does not have replaced by what
    happened: asked (the question below decides), refused (why), or nothing at all.

    ``status`` is the case's status after the turn; ``asked`` the statuses a pending question
    offers; ``refused`` what could not even be asked.
    """
    corrected: list[str] = []
    shown = 0
    for match in _SENTENCE.finditer(text):
        sentence = match.group(0)
        claimed = [s for s in _claims(sentence) if s is not status]
        if not claimed:
            continue
        lead = sentence[: len(sentence) - len(sentence.lstrip())]
        tail = "\n" if sentence.endswith("\n") else ""
        corrected += [text[shown : match.start()], lead, _truth(claimed, asked, refused), tail]
        shown = match.end()
    return "".join([*corrected, text[shown:]])


def _claims(sentence: str) -> list[CaseStatus]:
    """The statuses ``sentence`` states as done or being done (none for a question or a
    condition)."""
    if _CONDITIONAL.search(sentence):
        return []
    return [status for status, claim in _CLAIMS.items() if claim.search(sentence)]


def _truth(
    claimed: list[CaseStatus], asked: Sequence[CaseStatus], refused: Sequence[Refusal]
) -> str:
    """One sentence saying what happened instead of ``claimed``."""
    names = " or ".join(_NAMES[s] for s in claimed)
    reasons = [r.reason for r in refused if r.to_status in claimed]
    if reasons:
        return f"_I haven't marked it {names}: {reasons[0].rstrip('.')}._"
    if any(s in asked for s in claimed):
        return f"_I haven't marked it {names}: that happens once someone answers Yes below._"
    return f"_I haven't marked it {names}: ask me to, and confirm it when I ask._"


def explained(text: str, refused: Sequence[Refusal]) -> list[str]:
    """The notes of refusals that ``text`` now states in place (they need not be said twice)."""
    return [r.note for r in refused if r.note and f": {r.reason.rstrip('.')}._" in text]
