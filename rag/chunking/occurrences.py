"""Where each template of a log occurs: first line, counts per stretch of lines, exact lines."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from rag.chunking.templates import TemplateTable

MAX_BUCKETS = 50
MIN_BUCKET_LINES = 10
# Fewer buckets for logs with very many distinct messages, so the counts stay small in memory.
MAX_CELLS = 2_000_000


@dataclass(frozen=True)
class Occurrences:
    """Each template's first line and its count in each bucket (a stretch of consecutive lines).

    Built in a few linear passes over the line→template array; a template's exact lines are
    then found by scanning only the buckets it occurs in.
    """

    line_template: npt.NDArray[np.int32]
    first_line: npt.NDArray[np.int64]
    """Per template: the 0-based index of its first line."""
    bounds: npt.NDArray[np.int64]
    """Where each bucket starts, then the number of lines (one more entry than buckets)."""
    per_bucket: npt.NDArray[np.int64]
    """Templates × buckets: how many lines of each template each bucket holds."""

    @property
    def lengths(self) -> npt.NDArray[np.int64]:
        """Lines per bucket."""
        result: npt.NDArray[np.int64] = np.diff(self.bounds)
        return result

    def first_in(self, template: int, bucket: int) -> int:
        """The template's first line (0-based) inside this bucket."""
        start, end = int(self.bounds[bucket]), int(self.bounds[bucket + 1])
        return start + int(np.flatnonzero(self.line_template[start:end] == template)[0])

    def last_line(self, template: int) -> int:
        """The template's last line (0-based)."""
        bucket = int(np.flatnonzero(self.per_bucket[template])[-1])
        start, end = int(self.bounds[bucket]), int(self.bounds[bucket + 1])
        return start + int(np.flatnonzero(self.line_template[start:end] == template)[-1])

    def lines_of(self, template: int, limit: int) -> list[int]:
        """The template's first ``limit`` lines (0-based), in order."""
        found: list[int] = []
        for bucket in np.flatnonzero(self.per_bucket[template]):
            start, end = int(self.bounds[bucket]), int(self.bounds[bucket + 1])
            hits = np.flatnonzero(self.line_template[start:end] == template) + start
            found.extend(int(line) for line in hits[: limit - len(found)])
            if len(found) >= limit:
                break
        return found


def occurrences(table: TemplateTable) -> Occurrences:
    """Count every template per bucket of lines, in time linear in the number of lines."""
    line_template = table.line_template
    total = len(line_template)
    templates = len(table.signatures)
    buckets = max(1, min(MAX_BUCKETS, total // MIN_BUCKET_LINES, MAX_CELLS // max(templates, 1)))
    bounds = -((-np.arange(buckets + 1, dtype=np.int64) * total) // buckets)
    bucket_of_line = (np.arange(total, dtype=np.int64) * buckets) // max(total, 1)
    keys = line_template.astype(np.int64) * buckets + bucket_of_line
    per_bucket = np.bincount(keys, minlength=templates * buckets).reshape(templates, buckets)
    # Template ids are handed out in order of first appearance, so the running maximum of the
    # ids steps up by one exactly where each template first occurs.
    running = np.maximum.accumulate(line_template) if total else line_template
    first_line = np.flatnonzero(np.diff(running, prepend=-1)).astype(np.int64)
    return Occurrences(line_template, first_line, bounds, per_bucket)
