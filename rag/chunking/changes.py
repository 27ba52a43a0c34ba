"""What changed partway through a log: new messages, rate jumps and settings with new values."""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from domain.knowledge import FindingKind
from rag.chunking.occurrences import Occurrences
from rag.chunking.timestamps import TimestampParser

# A rate jump: at least this many lines in one bucket, at this many times the earlier rate.
MIN_SURGE_LINES = 5
SURGE_FACTOR = 5.0
# A line logged this rarely is a setting or a start-up message; a frequent one is a metric.
MAX_SETTING_OCCURRENCES = 5
# A setting: a named value the template masks (``maximumPoolSize=<*>``, ``timeout: <*>``).
SETTING = re.compile(r"(?P<key>[A-Za-z_][\w.-]*) ?[=:] ?<\*>")
_VALUE = r" ?[=:] ?([^\s,;)\]}]+)"
# Settings hold amounts (10, 30s, 512Mi, 0.75); an address or an id that differs is no change.
_AMOUNT = re.compile(r"-?\d+(?:\.\d+)?[A-Za-z%]{0,3}")
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
    keys = list(dict.fromkeys(match["key"] for match in SETTING.finditer(signature)))
    seen = where.lines_of(template, MAX_SETTING_OCCURRENCES + 1)
    if not keys or not 2 <= len(seen) <= MAX_SETTING_OCCURRENCES:
        return None
    before = _values(parser.without_timestamp(lines[seen[0]]), keys)
    for line in seen[1:]:
        after = _values(parser.without_timestamp(lines[line]), keys)
        differ = [key for key in after if key in before and before[key] != after[key]]
        if differ:
            said = ", ".join(f"{key}={before[key]} → {key}={after[key]}" for key in differ)
            return Change(template, FindingKind.CHANGED, line, len(seen), changed=said)
    return None


def _values(text: str, keys: list[str]) -> dict[str, str]:
    found: dict[str, str] = {}
    for key in keys:
        match = re.search(r"(?<![\w.-])" + re.escape(key) + _VALUE, text)
        if match is not None and _AMOUNT.fullmatch(match[1]):
            found[key] = match[1]
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
