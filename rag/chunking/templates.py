"""Masked signatures of log lines: repeated events share one template, embedded once."""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from rag.chunking.severity import ERROR_RANK, WARN_RANK, severity_rank
from rag.chunking.timestamps import TimestampParser

MASK = "<*>"
# Separate passes, each starting with a character class, let the regex engine skip ahead fast;
# IPs and dotted versions become <*>.<*>.<*>.<*> and then one <*> through the run rule.
_PASSES = (
    re.compile(r"/[\w.$@%+=~-]+(?:/[\w.$@%+=~-]+)+/?"),  # paths
    # One hex digit first, shared by every branch: the engine then skips to the next hex digit
    # instead of trying each branch at every character, which pays for the short-id branch.
    re.compile(
        r"[0-9a-fA-F](?:"
        r"[0-9a-fA-F]{7}(?:-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}"  # UUIDs
        r"|(?<=0)[xX][0-9a-fA-F]+"  # hex literals
        r"|[0-9a-fA-F]{7,}"  # ids and hashes
        # Short ids (ord_7dd73d, a git SHA a1b2c3d): six or more hex digits holding both a digit
        # and a letter, with no letter or digit either side, so a whole token or its part after
        # _ - = : . and the like. Left to the digit pass, 7dd73d would become <*>dd<*>d, one
        # template per id. Needing a digit keeps words like cafe and added; the boundaries leave
        # a hex-looking part of a word to the digit pass (xabc123 becomes xabc<*>, as before).
        # The first hex digit is matched already: the lookbehinds look at it and before it.
        r"|(?<![^\W_].)(?=[0-9a-fA-F]{5}[0-9a-fA-F]*+(?![^\W_]))"
        r"(?:(?<=[0-9])(?=[0-9a-fA-F]*[a-fA-F])|(?<=[a-fA-F])(?=[0-9a-fA-F]*[0-9]))"
        r"[0-9a-fA-F]{5,}"
        r")"
    ),
    re.compile(r"\d+"),
)
# Runs like <*>.<*>:<*> are one variable for the purpose of telling events apart.
_SIGNED = (("_-<*>", "_<*>"), (" -<*>", " <*>"), ("=-<*>", "=<*>"), (":-<*>", ":<*>"))
_MASK_RUN = re.compile(r"<\*>(?:[.:,/_-]?<\*>)+")
_MAX_TEMPLATE_CHARS = 400
# ~40 tokens: what tells events apart is at the start, and long inputs cost the most.
_MAX_EMBED_CHARS = 160
_BLOCK_LINES = 50_000


def mask(text: str) -> str:
    """Replace numbers, ids, hex, IPs and paths with <*> (whole texts keep their newlines)."""
    for variable in _PASSES:
        text = variable.sub(MASK, text)
    # A sign is part of the number (blk_-123 and blk_456 are the same event).
    for signed, unsigned in _SIGNED:
        text = text.replace(signed, unsigned)
    return _MASK_RUN.sub(MASK, text)


def embedding_text(signature: str) -> str:
    """What the model reads for a template: one token per variable, and only its start."""
    return signature.replace(MASK, "*")[:_MAX_EMBED_CHARS]


@dataclass
class TemplateTable:
    """Distinct signatures of a file, how often each occurs, and each line's template id."""

    signatures: list[str]
    counts: npt.NDArray[np.int64]
    line_template: npt.NDArray[np.int32]
    ranks: npt.NDArray[np.int8]
    has_timestamp: npt.NDArray[np.bool_]
    """Per line: whether it starts an entry (carries a timestamp) or continues one."""

    @property
    def line_ranks(self) -> npt.NDArray[np.int8]:
        """Each line's severity rank, looked up through its template."""
        result: npt.NDArray[np.int8] = self.ranks[self.line_template]
        return result

    def count_at_least(self, rank: int) -> int:
        """How many lines have at least this severity."""
        return int(self.counts[self.ranks >= rank].sum())

    @property
    def error_count(self) -> int:
        """Lines at ERROR or worse."""
        return self.count_at_least(ERROR_RANK)

    @property
    def warning_count(self) -> int:
        """Lines at WARN (not worse)."""
        return self.count_at_least(WARN_RANK) - self.error_count

    def most_repeated(self, top: int = 5) -> list[tuple[int, str]]:
        """The most frequent templates as (count, signature)."""
        order = np.argsort(-self.counts, kind="stable")[:top]
        return [(int(self.counts[i]), self.signatures[i]) for i in order]

    def idf(self) -> npt.NDArray[np.float32]:
        """Rarity weight per template: rare events count more in a window's vector."""
        total = max(int(self.counts.sum()), 1)
        weights: npt.NDArray[np.float32] = (np.log(total / self.counts) + 1.0).astype(np.float32)
        return weights


def build_templates(lines: list[str], parser: TimestampParser) -> TemplateTable:
    """Assign every line a template id by its masked signature."""
    ids: dict[str, int] = {}
    line_template = np.empty(len(lines), dtype=np.int32)
    has_timestamp = np.empty(len(lines), dtype=np.bool_)
    # Blocks bound the memory of the intermediate copies on million-line files.
    for first in range(0, len(lines), _BLOCK_LINES):
        block = lines[first : first + _BLOCK_LINES]
        stripped = [parser.without_timestamp(line) for line in block]
        # without_timestamp() returns the very same object when the line has none.
        for offset, (text, line) in enumerate(zip(stripped, block, strict=True)):
            has_timestamp[first + offset] = text is not line
        # One regex pass over the joined block is several times faster than one per line.
        masked = mask("\n".join(stripped)).split("\n")
        for offset, text in enumerate(masked):
            key = text.strip()[:_MAX_TEMPLATE_CHARS]
            line_template[first + offset] = ids.setdefault(key, len(ids))
    signatures = list(ids)
    counts = np.bincount(line_template, minlength=len(signatures)).astype(np.int64)
    ranks = np.array([severity_rank(text) for text in signatures], dtype=np.int8)
    return TemplateTable(signatures, counts, line_template, ranks, has_timestamp)
