"""YAML, JSON and INI-style configs by top-level key (or section), with line numbers."""

from __future__ import annotations

import re

from rag.chunking.chunks import ChunkDraft
from rag.chunking.documents import bounded_chunks

_YAML_KEY = re.compile(r"^(?P<key>[^\s#\-][^:#]*?|\"[^\"]+\"|'[^']+'):(?:\s|$)")
_INI_SECTION = re.compile(r"^\s*\[(?P<name>[^\]]+)\]\s*$")
_JSON_KEY = re.compile(r"^\s*\"(?P<key>(?:[^\"\\]|\\.)*)\"\s*:")
_ONE_LINERS = 3
_MAX_GROUPED = 8


def yaml_chunks(lines: list[str], title: str) -> list[ChunkDraft]:
    """One chunk per top-level key (documents split at ---); short scalar keys grouped."""
    starts: list[tuple[int, str]] = []
    for number, line in enumerate(lines, 1):
        if line.startswith("---"):
            starts.append((number, ""))
            continue
        match = _YAML_KEY.match(line)
        if match:
            starts.append((number, match["key"].strip("\"'")))
    return _grouped(lines, starts, title)


def ini_chunks(lines: list[str], title: str) -> list[ChunkDraft]:
    """One chunk per [section]; keys before the first section form their own chunk."""
    starts = [(1, "")]
    for number, line in enumerate(lines, 1):
        match = _INI_SECTION.match(line)
        if match:
            starts.append((number, match["name"].strip()))
    return _grouped(lines, starts, title)


def json_chunks(lines: list[str], title: str) -> list[ChunkDraft]:
    """One chunk per top-level key of a pretty-printed object; other JSON by size."""
    starts: list[tuple[int, str]] = []
    depth = 0
    for number, line in enumerate(lines, 1):
        if depth == 1:
            match = _JSON_KEY.match(line)
            if match:
                starts.append((number, match["key"]))
        depth += _depth_change(line)
    if not starts:
        return bounded_chunks(lines, 1, len(lines), None, title)
    return _grouped(lines, starts, title)


def _depth_change(line: str) -> int:
    """Net change of {}/[] nesting on a line, ignoring brackets inside strings."""
    change = 0
    in_string = False
    escaped = False
    for char in line:
        if in_string:
            escaped = not escaped and char == "\\"
            in_string = escaped or char != '"'
            continue
        if char == '"':
            in_string = True
        elif char in "{[":
            change += 1
        elif char in "}]":
            change -= 1
    return change


def _grouped(lines: list[str], starts: list[tuple[int, str]], title: str) -> list[ChunkDraft]:
    """Chunks between key starts; runs of short keys (one-liners) share one chunk."""
    if not starts or starts[0][0] > 1:
        starts = [(1, ""), *starts]
    chunks: list[ChunkDraft] = []
    group_start: int | None = None
    names: list[str] = []
    for index, (start, name) in enumerate(starts):
        end = starts[index + 1][0] - 1 if index + 1 < len(starts) else len(lines)
        group_start = start if group_start is None else group_start
        names += [name] if name else []
        short = end - start + 1 <= _ONE_LINERS
        if short and index + 1 < len(starts) and len(names) < _MAX_GROUPED:
            continue  # too short alone: it shares the next key's chunk
        chunks.extend(bounded_chunks(lines, group_start, end, ", ".join(names) or None, title))
        group_start, names = None, []
    return chunks
