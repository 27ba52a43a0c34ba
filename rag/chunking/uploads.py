"""From uploaded bytes to redacted, chunked text: the CPU-bound half of ingestion."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from pathlib import PurePosixPath

from domain.knowledge import Finding
from domain.redaction import redact
from rag.chunking.chunks import ChunkDraft, DocumentKind
from rag.chunking.configs import ini_chunks, json_chunks, yaml_chunks
from rag.chunking.decoding import UnsupportedUploadError, decode_upload, split_lines
from rag.chunking.documents import markdown_chunks, markdown_title, text_chunks
from rag.chunking.findings import by_message, message_findings
from rag.chunking.logs import LogWindows, cut_windows, window_chunks
from rag.chunking.templates import TemplateTable, build_templates
from rag.chunking.timestamps import TimestampParser, parser_for, timestamp_share

_BY_SUFFIX = {
    ".md": DocumentKind.MARKDOWN,
    ".markdown": DocumentKind.MARKDOWN,
    ".yaml": DocumentKind.CONFIG,
    ".yml": DocumentKind.CONFIG,
    ".json": DocumentKind.CONFIG,
    ".ini": DocumentKind.CONFIG,
    ".cfg": DocumentKind.CONFIG,
    ".conf": DocumentKind.CONFIG,
    ".toml": DocumentKind.CONFIG,
    ".properties": DocumentKind.CONFIG,
    ".log": DocumentKind.LOG,
    ".jsonl": DocumentKind.LOG,
    ".ndjson": DocumentKind.LOG,
}
# Below this share of timestamped lines a text of unknown type is read as prose, not a log.
_LOG_TIMESTAMP_SHARE = 0.3


class EmptyDocumentError(UnsupportedUploadError):
    """The upload has no text in it."""


@dataclass
class PreparedDocument:
    """A decoded, redacted and chunked document, ready for vectors and the store."""

    source: str
    title: str
    kind: DocumentKind
    lines: list[str]
    """The redacted lines; released once a log is cut into windows (they hold the same text)."""
    line_count: int
    chunks: list[ChunkDraft]
    redactions: int
    size_bytes: int
    encoding: str
    parser: TimestampParser
    templates: TemplateTable | None = None
    messages: TemplateTable | None = None
    """For logs: the templates read message by message (one however many threads logged it)."""
    windows: LogWindows | None = None
    findings: list[Finding] = field(default_factory=list)
    """For logs: what stands out, cited by line (read while the lines are still at hand)."""


def prepare_document(
    filename: str, content: bytes, *, max_bytes: int, now: datetime, title: str | None = None
) -> PreparedDocument:
    """Decode, redact (before anything else sees the text), detect the kind and chunk."""
    decoded = decode_upload(filename, content, max_bytes=max_bytes)
    redacted = redact(decoded.text)
    source, size, encoding = decoded.source, decoded.size_bytes, decoded.encoding
    # Only the lines are needed from here on; a 1M-line upload's text is ~100 MB per copy.
    del decoded
    lines = split_lines(redacted.text)
    redactions = redacted.count
    del redacted
    if not any(line.strip() for line in lines):
        raise EmptyDocumentError(f"{filename} is empty; there is nothing to search in it.")
    parser = parser_for(lines, now)
    doc = PreparedDocument(
        source=source,
        title=title or PurePosixPath(source).name,
        kind=detect_kind(source, lines, parser),
        lines=lines,
        line_count=len(lines),
        chunks=[],
        redactions=redactions,
        size_bytes=size,
        encoding=encoding,
        parser=parser,
    )
    _chunk(doc, keep_title=title is not None)
    return doc


def detect_kind(source: str, lines: list[str], parser: TimestampParser) -> DocumentKind:
    """By file suffix when it is telling, else a log when most lines carry timestamps."""
    suffix = PurePosixPath(source.lower()).suffix
    if suffix in _BY_SUFFIX:
        return _BY_SUFFIX[suffix]
    if timestamp_share(lines, parser) >= _LOG_TIMESTAMP_SHARE:
        return DocumentKind.LOG
    return DocumentKind.TEXT


def _chunk(doc: PreparedDocument, *, keep_title: bool) -> None:
    if doc.kind is DocumentKind.LOG:
        doc.templates = build_templates(doc.lines, doc.parser)
        doc.windows = cut_windows(doc.templates)
        doc.chunks = window_chunks(doc.lines, doc.templates, doc.windows, doc.parser)
        doc.messages = by_message(doc.templates)
        doc.findings = message_findings(doc.source, doc.lines, doc.messages, doc.parser)
        doc.lines = []
    elif doc.kind is DocumentKind.MARKDOWN:
        doc.title = doc.title if keep_title else markdown_title(doc.lines, doc.title)
        doc.chunks = markdown_chunks(doc.lines, doc.title)
    elif doc.kind is DocumentKind.CONFIG:
        doc.chunks = _config_chunks(doc)
    else:
        doc.chunks = text_chunks(doc.lines, doc.title)


def _config_chunks(doc: PreparedDocument) -> list[ChunkDraft]:
    suffix = PurePosixPath(doc.source.lower()).suffix
    if suffix in (".yaml", ".yml"):
        return yaml_chunks(doc.lines, doc.title)
    if suffix == ".json":
        return json_chunks(doc.lines, doc.title)
    return ini_chunks(doc.lines, doc.title)
