"""Logging set-up: plain text by default, one JSON object per line with FM_LOG_FORMAT=json.

Each record carries the case id, team and turn id of the work it was logged in, where known
(`log_context` sets them for a turn; `bind_log_context` adds the case once it is loaded). The
JSON lines pass through the secrets redaction, and extra values are cut short, so a token or a
long uploaded line never reaches the log whole; the code logs ids, not content, in the first place.
"""

from __future__ import annotations

import contextlib
import json
import logging
import sys
from collections.abc import Iterator
from contextvars import ContextVar
from datetime import UTC, datetime
from typing import Any, Literal

from domain.redaction import redact_text

LogFormat = Literal["text", "json"]
CONTEXT_FIELDS = ("case_id", "team_id", "turn_id")
EXTRA_CHARS = 200
TEXT_FORMAT = "%(levelname)s:%(name)s:%(message)s"
_STANDARD = frozenset(logging.makeLogRecord({}).__dict__) | {"message", "asctime"}
_context: ContextVar[dict[str, str]] = ContextVar("fm_log_context", default={})  # noqa: B039 - never mutated


@contextlib.contextmanager
def log_context(**ids: str | None) -> Iterator[None]:
    """Within this block, records carry these ids (added to the ids already set)."""
    token = _context.set(_merged(ids))
    try:
        yield
    finally:
        _context.reset(token)


def bind_log_context(**ids: str | None) -> None:
    """Add ids to the current context (until the enclosing `log_context` ends)."""
    _context.set(_merged(ids))


def _merged(ids: dict[str, str | None]) -> dict[str, str]:
    return {**_context.get(), **{key: value for key, value in ids.items() if value}}


class ContextFilter(logging.Filter):
    """Puts the current case id, team and turn id on each record."""

    def filter(self, record: logging.LogRecord) -> bool:
        for key, value in _context.get().items():
            setattr(record, key, value)
        return True


class JsonFormatter(logging.Formatter):
    """One JSON object per record: time, level, logger, message, ids, extras, exception."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": redact_text(record.getMessage()),
        }
        for key, value in record.__dict__.items():
            if key not in _STANDARD and not key.startswith("_"):
                entry[key] = _safe(value)
        if record.exc_info:
            entry["exception"] = redact_text(self.formatException(record.exc_info))
        return json.dumps(entry, ensure_ascii=False, default=str)


def _safe(value: object) -> object:
    """Numbers and booleans as they are; anything else as short, redacted text."""
    if value is None or isinstance(value, bool | int | float):
        return value
    return redact_text(str(value))[:EXTRA_CHARS]


class _Handler(logging.StreamHandler):  # type: ignore[type-arg]
    """The handler `configure_logging` installs (so a second call replaces it)."""


def configure_logging(level: str, log_format: LogFormat = "text") -> None:
    """The root logger: ``level``, on stderr, as text or JSON lines, with the context ids.

    Like `logging.basicConfig`, it leaves alone a root logger someone else gave handlers to
    (a test runner capturing logs, an embedding application).
    """
    root = logging.getLogger()
    if any(not isinstance(handler, _Handler) for handler in root.handlers):
        return
    handler = _Handler(sys.stderr)
    handler.addFilter(ContextFilter())
    json_lines = log_format == "json"
    handler.setFormatter(JsonFormatter() if json_lines else logging.Formatter(TEXT_FORMAT))
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level)
