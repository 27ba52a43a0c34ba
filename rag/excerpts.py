"""Excerpts: a hit narrowed to the lines that answer the query, with exact line numbers."""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from rag.chunking.severity import severity_name, severity_rank
from rag.chunking.timestamps import FORMATS, TimestampParser
from rag.retrieval import Hit, keyword_query

MAX_EXCERPT_LINES = 6
_WORD = re.compile(r"[a-z0-9_]{2,}")
_FORMATS = {fmt.name: fmt for fmt in FORMATS}


@dataclass(frozen=True)
class Excerpt:
    """Cited text: exactly lines `line_start`..`line_end` of `source` (after redaction)."""

    source: str
    title: str
    section: str | None
    doc_kind: str
    line_start: int
    line_end: int
    timestamp: datetime | None
    severity: str | None
    score: float
    text: str


def excerpt(hit: Hit, query: str) -> Excerpt:
    """The hit itself for documents; for log windows, the lines that match the query best."""
    row = hit.row
    if row["doc_kind"] != "log":
        return _from_row(row, hit.score, row["text"], row["line_start"], row["line_end"])
    lines = row["text"].split("\n")
    first, last = best_span(lines, query)
    parser = _parser(row)
    chosen = lines[first : last + 1]
    found = parser.first(chosen) if parser else None
    item = _from_row(
        row, hit.score, "\n".join(chosen), row["line_start"] + first, row["line_start"] + last
    )
    worst = max((severity_rank(line) for line in chosen), default=0)
    return replace(item, timestamp=found, severity=severity_name(worst))


def best_span(lines: list[str], query: str, limit: int = MAX_EXCERPT_LINES) -> tuple[int, int]:
    """0-based inclusive span around the line sharing most words with the query."""
    wanted = _terms(_WORD.findall(keyword_query(query).lower()))
    scores = [len(wanted & _terms(_WORD.findall(keyword_query(line).lower()))) for line in lines]
    best = max(range(len(lines)), key=lambda i: (scores[i], severity_rank(lines[i]), -i))
    first = last = best
    # Neighbours join the excerpt only when they match about as well (the same event repeated).
    strong = max(1, (scores[best] + 1) // 2)
    while last + 1 < len(lines) and scores[last + 1] >= strong and last - first + 1 < limit:
        last += 1
    while first > 0 and scores[first - 1] >= strong and last - first + 1 < limit:
        first -= 1
    return first, last


def _terms(words: list[str]) -> set[str]:
    """Words and adjacent word pairs: pairs prefer the line that has the query's phrasing."""
    return set(words) | {f"{a} {b}" for a, b in itertools.pairwise(words)}


def _parser(row: dict[str, Any]) -> TimestampParser | None:
    fmt = _FORMATS.get(row.get("ts_format") or "")
    anchor = row.get("ts_first")
    if fmt is None or anchor is None:
        return None
    return TimestampParser(fmt, anchor.year)


def _from_row(row: dict[str, Any], score: float, text: str, start: int, end: int) -> Excerpt:
    return Excerpt(
        source=row["source"],
        title=row["title"],
        section=row["section"],
        doc_kind=row["doc_kind"],
        line_start=start,
        line_end=end,
        timestamp=row["ts_first"],
        severity=row["severity"],
        score=score,
        text=text,
    )
