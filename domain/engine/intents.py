"""Deterministic reading of short typed answers and explicit status requests (no model needed)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from domain.lifecycle.confirmations import Decision
from domain.lifecycle.status import CaseStatus

MAX_YES_WORDS = 8
MAX_NO_WORDS = 4

_YES = re.compile(
    r"^(?:yes|yep|yeah|yup|y|correct|confirm(?:ed)?|exactly|right|that'?s right|"
    r"sure|ok(?:ay)?|accurate|go ahead|do it|agreed|lgtm|👍|✅)(?!\w)",
)
_NO = re.compile(r"^(?:no|nope|nah|n|incorrect|wrong|not really|dispute|don'?t|❌|👎)(?!\w)")
_UNSURE = re.compile(
    r"^(?:not sure|unsure|uncertain|i'?m not sure|need to verify|i need to verify|maybe|"
    r"let me (?:check|verify))\b"
)
_DISPUTE = re.compile(r"^(?:actually,? let me recheck|the data (?:is|may be) wrong)")
_QUALIFIER = re.compile(r"\b(?:but|not|however|although|except|actually|though|instead)\b")

_CLOSE = re.compile(r"^(?:please\s+)?(?:close|abandon)(?:\s+(?:this|it|the case|case))?\b")
_RESOLVED = re.compile(r"^(?:resolved|fixed)\s*[:\-–]\s*(?P<summary>\S.*)$", re.S)
_INVESTIGATE = re.compile(
    r"^(?:please\s+|let'?s\s+)?(?:investigate|start (?:an |the |a formal )?investigation)"
    r"\b(?:\s*[:\-–]\s*(?P<statement>\S.*))?",
    re.S,
)


def _normalise(text: str) -> str:
    return " ".join(text.strip().lower().replace("’", "'").split())


def parse_decision(text: str) -> Decision | None:
    """A short yes / no / not-sure answer; None for anything longer or qualified (a correction)."""
    said = _normalise(text).rstrip(".!")
    words = said.split()
    if not words:
        return None
    if _UNSURE.match(said):
        return Decision.UNSURE
    if _DISPUTE.match(said):
        return Decision.NO
    if _YES.match(said) and len(words) <= MAX_YES_WORDS and not _QUALIFIER.search(said):
        return Decision.YES
    if _NO.match(said) and len(words) <= MAX_NO_WORDS:
        return Decision.NO
    return None


@dataclass(frozen=True)
class StatusIntent:
    """A person explicitly asked for a status change."""

    to_status: CaseStatus
    detail: str | None = None
    """What fixed it (resolved), or the problem statement (investigate)."""


def parse_status_intent(text: str) -> StatusIntent | None:
    """'close this', 'resolved: <what fixed it>', 'investigate[: <problem>]'; else None."""
    stripped = text.strip()
    said = _normalise(stripped)
    if _CLOSE.match(said):
        return StatusIntent(CaseStatus.CLOSED)
    resolved = _RESOLVED.match(said)
    if resolved:
        return StatusIntent(CaseStatus.RESOLVED, _original(stripped, resolved.group("summary")))
    investigate = _INVESTIGATE.match(said)
    if investigate:
        statement = investigate.group("statement")
        return StatusIntent(CaseStatus.INVESTIGATING, _original(stripped, statement))
    return None


def _original(text: str, lowered: str | None) -> str | None:
    """The tail of ``text`` matching ``lowered`` in its original case."""
    if not lowered:
        return None
    tail = " ".join(text.split())
    return tail[len(tail) - len(lowered) :].strip() or None
