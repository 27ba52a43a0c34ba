"""What changed partway through a log: new messages, rate jumps and settings with new values."""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from domain.knowledge import FindingKind
from rag.chunking.occurrences import Occurrences
from rag.chunking.settings import AMOUNT, MAX_SETTING_OCCURRENCES, is_counter
from rag.chunking.timestamps import TimestampParser

# A rate jump: at least this many lines in one bucket, at this many times the earlier rate.
MIN_SURGE_LINES = 5
SURGE_FACTOR = 5.0
# A setting: a named value the template masks (``maximumPoolSize=<*>``, ``timeout: <*>``,
# ``"maxPoolSize": <*>`` in JSON).
SETTING = re.compile(r"\"?(?P<key>[A-Za-z_][\w.-]*)\"? ?[=:] ?<\*>")
_VALUE = r"\"?(?P<sep> ?[=:] ?)(?P<value>[^\s,;)\]}]+)"
_ORDER = {FindingKind.CHANGED: 0, FindingKind.SURGE: 1, FindingKind.NEW: 2}


@dataclass(frozen=True)
class Change:
    """A template that changed, at which line (0-based), and how."""

    template: int
    kind: FindingKind
    line: int
    count: int
    factor: float | None = None
    changed: str | None = None
    first: int | None = None
    """For a setting whose new value is a message of its own: the line of its first value."""


def surges(where: Occurrences, baseline: int) -> dict[int, tuple[int, float]]:
    """Templates whose rate in a bucket is many times their earlier rate: bucket and factor.

    Only templates seen before count (one never seen before is new, not faster), and only
    after the first ``baseline`` lines, so there is an earlier rate to compare with.
    """
    rows = np.flatnonzero(where.per_bucket.sum(axis=1) >= MIN_SURGE_LINES)
    counts = where.per_bucket[rows].astype(np.float64)
    lengths = where.lengths.astype(np.float64)
    before = np.cumsum(counts, axis=1) - counts
    lines_before = np.cumsum(lengths) - lengths
    with np.errstate(divide="ignore", invalid="ignore"):
        factor = (counts / lengths) / (before / np.maximum(lines_before, 1.0))
    jumped = (
        (counts >= MIN_SURGE_LINES)
        & (before > 0)
        & (factor >= SURGE_FACTOR)
        & (lines_before >= baseline)[None, :]
    )
    found: dict[int, tuple[int, float]] = {}
    for row in np.flatnonzero(jumped.any(axis=1)):
        bucket = int(np.argmax(jumped[row]))
        found[int(rows[row])] = (bucket, float(factor[row, bucket]))
    return found


def value_change(
    lines: list[str], where: Occurrences, template: int, signature: str, parser: TimestampParser
) -> Change | None:
    """A setting logged a few times whose value differs from the first time it was logged."""
    named = dict.fromkeys(match["key"] for match in SETTING.finditer(signature))
    keys = [key for key in named if not is_counter(key)]
    if not keys:
        return None
    seen = where.lines_of(template, MAX_SETTING_OCCURRENCES + 1)
    if not 2 <= len(seen) <= MAX_SETTING_OCCURRENCES:
        return None
    before = _values(parser.without_timestamp(lines[seen[0]]), keys)
    for line in seen[1:]:
        after = _values(parser.without_timestamp(lines[line]), keys)
        differ = [key for key in after if key in before and before[key][0] != after[key][0]]
        if differ:
            said = ", ".join(f"{before[key][1]} → {after[key][1]}" for key in differ)
            return Change(template, FindingKind.CHANGED, line, len(seen), changed=said)
    return None


def _values(text: str, keys: list[str]) -> dict[str, tuple[str, str]]:
    """Each key's value, and the setting as written (``maximumPoolSize=50``)."""
    found: dict[str, tuple[str, str]] = {}
    for key in keys:
        match = re.search(r"(?<![\w.-])\"?" + re.escape(key) + _VALUE, text)
        if match is not None and AMOUNT.fullmatch(match["value"]):
            found[key] = (match["value"], f"{key}{match['sep']}{match['value']}")
    return found


def rank_changes(changes: list[Change], incident: int | None) -> list[Change]:
    """Closest before the incident (1-based line) first; without one, settings then rate jumps.

    What changed just before errors started is the likeliest cause; what changed after comes
    next. Without an incident, changed settings matter most, then jumps, then new messages that
    recur most.
    """
    if incident is None:
        return sorted(changes, key=lambda c: (_ORDER[c.kind], -c.count, c.line))
    start = incident - 1
    return sorted(changes, key=lambda c: (c.line > start, abs(start - c.line), _ORDER[c.kind]))
