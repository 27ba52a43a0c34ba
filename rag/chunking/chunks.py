"""A chunk before it is stored: text, the lines it spans, time range, severity, section."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum


class DocumentKind(StrEnum):
    """How a file was read and cut into chunks."""

    LOG = "log"
    MARKDOWN = "markdown"
    CONFIG = "config"
    TEXT = "text"


@dataclass(frozen=True)
class ChunkDraft:
    """One retrievable piece of a document, with everything a citation needs."""

    text: str
    line_start: int
    line_end: int
    section: str | None = None
    ts_first: datetime | None = None
    ts_last: datetime | None = None
    severity_rank: int = 0
    embed_text: str = ""
    """What the model embeds for non-log chunks (title and section first); logs use templates."""


def join_lines(lines: list[str], start: int, end: int) -> str:
    """Lines `start`..`end` (1-based, inclusive) as one text."""
    return "\n".join(lines[start - 1 : end])
