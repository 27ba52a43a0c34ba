"""Settings a log dumps one per line, and which of them were dumped again with another value.

Kafka prints ``ConsumerConfig values:`` and then one tab-indented ``key = value`` line per
setting; other programs dump YAML (``  maxSize: 50``) or pretty-printed JSON
(``"maxSize": 50,``) the same way. Each line is its own template, so only the templates that
look like one setting are read again, and only their few lines.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from domain.knowledge import collector_prefix
from rag.chunking.occurrences import Occurrences
from rag.chunking.templates import TemplateTable

# A line logged this rarely is a setting or a start-up message; a frequent one is a metric.
MAX_SETTING_OCCURRENCES = 5
# A key dumped more often than this is a running report, not a start-up's settings.
MAX_DUMPS = 20
# Settings hold amounts (10, 30s, 512Mi, 0.75); an address or an id that differs is no change.
AMOUNT = re.compile(r"-?\d+(?:\.\d+)?[A-Za-z%]{0,3}")
_KEY = r"[A-Za-z_][\w.-]*"
# A value is a word or two (``500``, ``class org.apache.…StringDeserializer``), quoted, or a list:
# ``Detail: Key (id)=(5) already exists.`` is a sentence, not a setting.
_DUMPED = re.compile(
    r"(?P<indent>\s*)(?P<q>\"?)(?P<key>" + _KEY + r")(?P=q)(?P<sep>\s*[=:]\s*)"
    r"(?P<value>\"[^\"]*\"|\[.*\]|\{.*\}|[^\s{\[\"]\S*?(?:[ \t]+\S*[^\s,])?),?\s*"
)
# A key with nothing after it opens a nested block (YAML ``pool:``, JSON ``"pool": {``).
_PARENT = re.compile(r"(?P<indent>\s*)\"?(?P<key>" + _KEY + r")\"?\s*[=:]\s*[{\[]?\s*")
# ``java.lang.IllegalStateException: pool exhausted`` and ``KeyError: 'x'`` are not settings.
_NOT_A_KEY = re.compile(r"(?:\w+\.)+[A-Z]\w*|\w*(?:Error|Exception|Warning|Throwable)")
# Values that differ on every start (a start time, a generation, an id) are no change of setting.
_COUNTER_WORDS = frozenset(
    {"id", "pid", "epoch", "offset", "seq", "generation", "time", "timestamp"}
)
_UNITS = frozenset({"ms", "millis", "ns", "us", "s", "sec", "secs"})
_WORDS = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")
# How far up a nested key's parents, and a dumped line's entry, are looked for.
_MAX_PARENT_LINES = 50
_MAX_ENTRY_LINES = 500


@dataclass(frozen=True)
class SettingChange:
    """A setting dumped again with another value: where first and where changed (0-based)."""

    template: int
    first: int
    line: int
    count: int
    changed: str


@dataclass(frozen=True)
class _Seen:
    """One line setting a key: where, in which template and entry, and its value."""

    line: int
    template: int
    entry: int | None
    key: str
    written: str
    value: str


def is_counter(key: str) -> bool:
    """Whether a key names what differs on every start (``startTimeMs``, ``generationId``)."""
    words = [word.lower() for word in _WORDS.findall(key)]
    while len(words) > 1 and words[-1] in _UNITS:
        words.pop()
    return bool(words) and words[-1] in _COUNTER_WORDS


def dumped_settings(
    lines: list[str], table: TemplateTable, where: Occurrences, candidates: npt.NDArray[np.bool_]
) -> list[SettingChange]:
    """Settings on lines of their own whose value differs from the one first dumped."""
    entries = table.has_timestamp.mean() >= 0.5
    groups: dict[tuple[int | None, str], list[_Seen]] = defaultdict(list)
    rare = candidates & (table.counts <= MAX_DUMPS)
    for template in np.flatnonzero(rare):
        t = int(template)
        if not _is_setting(table.signatures[t]):
            continue
        for line in where.lines_of(t, MAX_DUMPS + 1):
            seen = _read(lines, table, line, t, entries)
            if seen is not None:
                groups[(_scope(table, seen), seen.key)].append(seen)
    found = (_changed(sorted(g, key=lambda s: s.line)) for g in groups.values())
    return [change for change in found if change is not None]


def _is_setting(signature: str) -> bool:
    """Whether a template is one setting on a line of its own (after any collector's prefix)."""
    match = _DUMPED.fullmatch(signature[len(collector_prefix(signature)) :])
    return match is not None and _NOT_A_KEY.fullmatch(match["key"]) is None


def _read(
    lines: list[str], table: TemplateTable, line: int, template: int, entries: bool
) -> _Seen | None:
    text = lines[line]
    match = _DUMPED.fullmatch(text[len(collector_prefix(text)) :])
    if match is None:
        return None
    entry = _entry_of(table, line) if entries else None
    key = ".".join(reversed([*_parents(lines, line, entry, match)]))
    written = " ".join(f"{key}{match['sep']}{match['value']}".split())
    return _Seen(line, template, entry, key, written, match["value"])


def _entry_of(table: TemplateTable, line: int) -> int | None:
    """The line (0-based) of the entry a continuation line belongs to: the last timestamped one."""
    start = max(line - _MAX_ENTRY_LINES, 0)
    stamped = np.flatnonzero(table.has_timestamp[start : line + 1])
    return start + int(stamped[-1]) if len(stamped) else None


def _scope(table: TemplateTable, seen: _Seen) -> int | None:
    # The same key under two dumps (a consumer's and a producer's client.id) is two settings.
    return None if seen.entry is None else int(table.line_template[seen.entry])


def _parents(lines: list[str], line: int, entry: int | None, match: re.Match[str]) -> Iterator[str]:
    """A nested key, then its parents (``maxSize``, ``pool``), read from the lines above it."""
    yield match["key"]
    indent = len(match["indent"].expandtabs())
    stop = max(line - _MAX_PARENT_LINES, -1 if entry is None else entry - 1)
    for above in range(line - 1, stop, -1):
        if indent == 0:
            return
        text = lines[above][len(collector_prefix(lines[above])) :]
        parent = _PARENT.fullmatch(text)
        if parent is not None and len(parent["indent"].expandtabs()) < indent:
            indent = len(parent["indent"].expandtabs())
            yield parent["key"]
        elif text.strip() and not text[0].isspace():
            return


def _changed(seen: list[_Seen]) -> SettingChange | None:
    if not 2 <= len(seen) <= MAX_DUMPS:
        return None
    first = seen[0]
    for later in seen[1:]:
        if later.entry == first.entry and first.entry is not None:
            continue  # twice in one dump: two settings of the same name, not a change
        if later.value != first.value and _comparable(first, later):
            changed = f"{first.written} → {later.written}"
            return SettingChange(later.template, first.line, later.line, len(seen), changed)
    return None


def _comparable(first: _Seen, later: _Seen) -> bool:
    """Values in different templates differ in words; in one template, only amounts count."""
    if first.template != later.template:
        return True
    both = AMOUNT.fullmatch(first.value) and AMOUNT.fullmatch(later.value)
    return bool(both) and not is_counter(first.key)
