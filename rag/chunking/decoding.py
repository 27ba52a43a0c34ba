"""Uploaded bytes to text lines: size limits, gzip, binary refusal, encoding fallback, newlines."""

from __future__ import annotations

import zlib
from dataclasses import dataclass

GZIP_MAGIC = b"\x1f\x8b"
_SNIFF_BYTES = 8192
_CONTROL_SHARE_LIMIT = 0.10
# Bytes that are not text in any encoding we accept (tab, newlines, form feed and escape are).
_CONTROL = frozenset(range(32)) - {9, 10, 12, 13, 27} | {127}
_KNOWN_BINARY = (
    (b"%PDF", "a PDF document"),
    (b"PK\x03\x04", "a ZIP archive (unzip it and upload the files inside)"),
    (b"\x89PNG", "a PNG image"),
    (b"\xff\xd8\xff", "a JPEG image"),
    (b"GIF8", "a GIF image"),
    (b"\x7fELF", "an executable"),
    (b"BZh", "a bzip2 archive (decompress it first)"),
    (b"\xfd7zXZ", "an xz archive (decompress it first)"),
)
_MAX_INVALID_UTF8_SHARE = 0.01


class UnsupportedUploadError(ValueError):
    """The upload cannot be read as text; the message says why in plain words."""


@dataclass(frozen=True)
class DecodedText:
    """An upload as text with "\\n" newlines: its name (without .gz), encoding and size in bytes."""

    source: str
    text: str
    encoding: str
    size_bytes: int


def decode_upload(filename: str, content: bytes, *, max_bytes: int) -> DecodedText:
    """Turn uploaded bytes into text, or raise UnsupportedUploadError with the reason."""
    source = filename
    _check_size(filename, len(content), max_bytes)
    if content.startswith(GZIP_MAGIC) or filename.lower().endswith(".gz"):
        content = gunzip(filename, content, max_bytes)
        source = filename[:-3] if filename.lower().endswith(".gz") else filename
    refuse_binary(filename, content)
    text, encoding = decode_bytes(content)
    return DecodedText(source, normalize_newlines(text), encoding, len(content))


def _check_size(filename: str, size: int, max_bytes: int) -> None:
    if size > max_bytes:
        raise UnsupportedUploadError(
            f"{filename} is {_megabytes(size)}, over the {_megabytes(max_bytes)} upload limit "
            "(FM_MAX_UPLOAD_MB); upload the relevant part of it instead."
        )


def _megabytes(size: int) -> str:
    return f"{size / (1024 * 1024):.1f} MB"


def gunzip(filename: str, content: bytes, max_bytes: int) -> bytes:
    """Decompress gzip data, stopping as soon as it grows past `max_bytes` (no gzip bombs)."""
    inflater = zlib.decompressobj(wbits=31)
    try:
        data = inflater.decompress(content, max_bytes + 1)
    except zlib.error:
        raise UnsupportedUploadError(
            f"{filename} is not a valid gzip file (it may be truncated or corrupt)."
        ) from None
    if len(data) > max_bytes:
        raise UnsupportedUploadError(
            f"{filename} decompresses to more than the {_megabytes(max_bytes)} upload limit "
            "(FM_MAX_UPLOAD_MB); upload the relevant part of it instead."
        )
    return data


def refuse_binary(filename: str, content: bytes) -> None:
    """Raise UnsupportedUploadError when the bytes are clearly not text."""
    head = content[:_SNIFF_BYTES]
    for magic, kind in _KNOWN_BINARY:
        if head.startswith(magic):
            raise UnsupportedUploadError(f"{filename} is {kind}, not text; it was not ingested.")
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):
        return  # UTF-16 with a byte-order mark: NULs are expected
    controls = sum(1 for byte in head if byte in _CONTROL)
    if b"\x00" in head or (head and controls / len(head) > _CONTROL_SHARE_LIMIT):
        raise UnsupportedUploadError(
            f"{filename} looks like a binary file, not text (logs, configs, command output or "
            "markdown); it was not ingested."
        )


def decode_bytes(content: bytes) -> tuple[str, str]:
    """Decode as UTF-8 (with BOMs), tolerate a few bad bytes, else fall back to Windows-1252."""
    if content.startswith(b"\xef\xbb\xbf"):
        return content[3:].decode("utf-8", errors="replace"), "utf-8-sig"
    if content.startswith((b"\xff\xfe", b"\xfe\xff")):
        return content.decode("utf-16", errors="replace"), "utf-16"
    try:
        return content.decode("utf-8"), "utf-8"
    except UnicodeDecodeError:
        pass
    replaced = content.decode("utf-8", errors="replace")
    if replaced.count("\ufffd") <= max(1, len(content) * _MAX_INVALID_UTF8_SHARE):
        return replaced, "utf-8 (with invalid bytes replaced)"
    try:
        return content.decode("cp1252"), "cp1252"
    except UnicodeDecodeError:
        return content.decode("latin-1"), "latin-1"


def normalize_newlines(text: str) -> str:
    """CRLF and lone CR become LF, as editors count lines."""
    if "\r" in text:
        return text.replace("\r\n", "\n").replace("\r", "\n")
    return text


def split_lines(text: str) -> list[str]:
    """Lines of LF-separated text; a final newline ends the last line rather than starting one."""
    if not text:
        return []
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    return lines
