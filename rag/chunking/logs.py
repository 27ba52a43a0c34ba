"""Logs as windows of consecutive lines; a window's vector comes from its lines' templates."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from rag.chunking.chunks import ChunkDraft
from rag.chunking.templates import TemplateTable
from rag.chunking.timestamps import TimestampParser

WINDOW_LINES = 20
# A stack trace or other continuation lines stay with the entry they belong to, up to this size.
MAX_WINDOW_LINES = 40
_VECTOR_BLOCK_WINDOWS = 2048


@dataclass(frozen=True)
class LogWindows:
    """Where each window starts and ends (0-based, end exclusive) in a file's lines."""

    starts: npt.NDArray[np.int64]
    ends: npt.NDArray[np.int64]

    def __len__(self) -> int:
        return len(self.starts)


def cut_windows(
    table: TemplateTable, size: int = WINDOW_LINES, max_size: int = MAX_WINDOW_LINES
) -> LogWindows:
    """Windows of about `size` lines that end where a new entry starts, skipping blank ones."""
    total = len(table.line_template)
    blank = _blank_template(table)
    # Continuation lines only mean something when most lines carry a timestamp.
    has_ts = table.has_timestamp if table.has_timestamp.mean() >= 0.5 else ~table.has_timestamp
    starts: list[int] = []
    ends: list[int] = []
    start = 0
    while start < total:
        end = min(start + size, total)
        limit = min(start + max_size, total)
        while end < limit and not has_ts[end] and table.line_template[end] != blank:
            end += 1
        if blank < 0 or bool((table.line_template[start:end] != blank).any()):
            starts.append(start)
            ends.append(end)
        start = end
    return LogWindows(np.array(starts, dtype=np.int64), np.array(ends, dtype=np.int64))


def _blank_template(table: TemplateTable) -> int:
    try:
        return table.signatures.index("")
    except ValueError:
        return -1


def window_chunks(
    lines: list[str], table: TemplateTable, windows: LogWindows, parser: TimestampParser
) -> list[ChunkDraft]:
    """One chunk per window: its text, line numbers, first/last timestamp, worst severity."""
    ranks = table.line_ranks
    worst = np.maximum.reduceat(ranks, windows.starts) if len(windows) else ranks[:0]
    chunks = []
    for index, (start, end) in enumerate(zip(windows.starts, windows.ends, strict=True)):
        window = lines[start:end]
        chunks.append(
            ChunkDraft(
                text="\n".join(window),
                line_start=int(start) + 1,
                line_end=int(end),
                ts_first=parser.first(window),
                ts_last=parser.last(window),
                severity_rank=int(worst[index]),
            )
        )
    return chunks


def window_vectors(
    table: TemplateTable, windows: LogWindows, template_vectors: npt.NDArray[np.float32]
) -> npt.NDArray[np.float32]:
    """Each window's vector: the rarity-weighted mean of its distinct templates' vectors."""
    weights = table.idf()
    blank = _blank_template(table)
    if blank >= 0:
        weights[blank] = 0.0
    weighted = template_vectors * weights[:, None]
    out = np.zeros((len(windows), template_vectors.shape[1]), dtype=np.float32)
    for first in range(0, len(windows), _VECTOR_BLOCK_WINDOWS):
        last = min(first + _VECTOR_BLOCK_WINDOWS, len(windows))
        out[first:last] = _block_vectors(table, windows, weighted, first, last)
    norms = np.linalg.norm(out, axis=1, keepdims=True)
    result: npt.NDArray[np.float32] = out / np.maximum(norms, 1e-12)
    return result


def _block_vectors(
    table: TemplateTable,
    windows: LogWindows,
    weighted: npt.NDArray[np.float32],
    first: int,
    last: int,
) -> npt.NDArray[np.float32]:
    starts = windows.starts[first:last]
    lengths = windows.ends[first:last] - starts
    offsets = np.cumsum(lengths) - lengths
    line_index = np.arange(lengths.sum()) + np.repeat(starts - offsets, lengths)
    window_of_line = np.repeat(np.arange(last - first, dtype=np.int64), lengths)
    templates = len(table.signatures)
    # Each distinct template counts once per window: repetition is not more evidence.
    pairs = np.unique(window_of_line * templates + table.line_template[line_index])
    pair_window, pair_template = pairs // templates, pairs % templates
    boundaries = np.flatnonzero(np.r_[True, pair_window[1:] != pair_window[:-1]])
    sums: npt.NDArray[np.float32] = np.add.reduceat(weighted[pair_template], boundaries, axis=0)
    return sums
