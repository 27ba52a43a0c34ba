"""Markdown by heading (section path kept) and plain text by paragraph, with line numbers."""

from __future__ import annotations

import re
from collections.abc import Iterator

from rag.chunking.chunks import ChunkDraft, join_lines

MAX_CHUNK_LINES = 60
MAX_CHUNK_CHARS = 2000
SECTION_SEPARATOR = " › "
_HEADING = re.compile(r"^(?P<hashes>#{1,6})[ \t]+(?P<title>.+?)[ \t#]*$")
_FENCE = re.compile(r"^[ \t]*(```|~~~)")
_FRONT_TITLE = re.compile(r"^title:[ \t]*[\"']?(?P<title>[^\"'\n]+)[\"']?[ \t]*$")


def markdown_title(lines: list[str], fallback: str) -> str:
    """The first level-1 heading, else front-matter `title:`, else any heading, else `fallback`."""
    first: str | None = None
    for _, (level, text) in _headings(lines):
        if level == 1:
            return text
        first = first or text
    return _front_matter_title(lines) or first or fallback


def _front_matter_title(lines: list[str]) -> str | None:
    if not lines or lines[0].strip() != "---":
        return None
    for line in lines[1:40]:
        if line.strip() == "---":
            return None
        match = _FRONT_TITLE.match(line)
        if match:
            return match["title"].strip()
    return None


def _headings(lines: list[str]) -> Iterator[tuple[int, tuple[int, str]]]:
    """(0-based line number, (level, title)) for each heading outside code fences."""
    fenced = False
    for number, line in enumerate(lines):
        if _FENCE.match(line):
            fenced = not fenced
            continue
        match = None if fenced else _HEADING.match(line)
        if match:
            yield number, (len(match["hashes"]), match["title"].strip())


def markdown_chunks(lines: list[str], title: str) -> list[ChunkDraft]:
    """One chunk per section (split further when long), each with its heading path."""
    chunks: list[ChunkDraft] = []
    path: list[tuple[int, str]] = []
    headings = dict(_headings(lines))
    starts = sorted({0, *headings})
    pending: int | None = None
    for index, start in enumerate(starts):
        end = starts[index + 1] if index + 1 < len(starts) else len(lines)
        if start in headings:
            level, heading = headings[start]
            path = [(lvl, text) for lvl, text in path if lvl < level] + [(level, heading)]
        first = start if pending is None else pending
        bare = _body_lines(lines, start, end) == 0 or _is_front_matter(lines, start, end)
        if bare and index + 1 < len(starts):
            pending = first  # a bare heading or front matter joins the next section
            continue
        pending = None
        section = SECTION_SEPARATOR.join(text for _, text in path) or None
        chunks.extend(bounded_chunks(lines, first + 1, end, section, title))
    return chunks


def _is_front_matter(lines: list[str], start: int, end: int) -> bool:
    block = [line.strip() for line in lines[start:end] if line.strip()]
    return start == 0 and len(block) >= 2 and block[0] == "---" and block[-1] == "---"


def _body_lines(lines: list[str], start: int, end: int) -> int:
    return sum(1 for line in lines[start + 1 : end] if line.strip())


def text_chunks(lines: list[str], title: str) -> list[ChunkDraft]:
    """Plain text by paragraph (blank-line separated), merging short ones up to a size."""
    chunks: list[ChunkDraft] = []
    start: int | None = None
    size = 0
    for number, line in enumerate(lines, 1):
        if start is None and line.strip():
            start, size = number, 0
        size += len(line) + 1
        closes = not line.strip() and size >= MAX_CHUNK_CHARS // 2
        if start is not None and (closes or number - start + 1 >= MAX_CHUNK_LINES):
            chunks.extend(bounded_chunks(lines, start, number, None, title))
            start = None
    if start is not None:
        chunks.extend(bounded_chunks(lines, start, len(lines), None, title))
    return chunks


def bounded_chunks(
    lines: list[str], start: int, end: int, section: str | None, title: str
) -> list[ChunkDraft]:
    """Chunks for lines start..end (1-based, inclusive), trimmed of blank edges and size-capped."""
    while start <= end and not lines[start - 1].strip():
        start += 1
    while end >= start and not lines[end - 1].strip():
        end -= 1
    chunks = []
    piece_start = start
    while piece_start <= end:
        piece_end = _piece_end(lines, piece_start, end)
        text = join_lines(lines, piece_start, piece_end)
        chunks.append(
            ChunkDraft(
                text=text,
                line_start=piece_start,
                line_end=piece_end,
                section=section,
                embed_text=embedding_text(title, section, text),
            )
        )
        piece_start = piece_end + 1
    return chunks


def _piece_end(lines: list[str], start: int, end: int) -> int:
    size = 0
    for number in range(start, end + 1):
        size += len(lines[number - 1]) + 1
        if number > start and (size > MAX_CHUNK_CHARS or number - start + 1 > MAX_CHUNK_LINES):
            return number - 1
    return end


def embedding_text(title: str, section: str | None, text: str) -> str:
    """What the model sees for a document chunk: where it is, then what it says."""
    if not section:
        where = title
    elif section == title or section.startswith(title + SECTION_SEPARATOR):
        where = section  # the section path already starts at the document's title
    else:
        where = f"{title}{SECTION_SEPARATOR}{section}"
    return f"{where}\n{text}"
