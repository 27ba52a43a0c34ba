"""Shared base model and helpers for the domain's pydantic models."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

from pydantic import BaseModel, ConfigDict


class DomainModel(BaseModel):
    """Base for domain models: strict about unknown fields, docstrings become schema text."""

    model_config = ConfigDict(
        extra="forbid",
        validate_assignment=True,
        use_attribute_docstrings=True,
    )


def new_id(prefix: str) -> str:
    """Return a fresh system-generated identifier such as ``ev_1a2b3c4d5e6f``."""
    return f"{prefix}_{uuid.uuid4().hex[:12]}"


def utc_now() -> datetime:
    """Return the current time in UTC (default factory for system timestamps)."""
    return datetime.now(UTC)


def shorten(text: str, limit: int) -> str:
    """One line of at most ``limit`` characters, cut at a word boundary with an ellipsis."""
    flat = " ".join(text.split())
    if len(flat) <= limit:
        return flat
    cut = flat[: limit - 1]
    if flat[len(cut)] != " " and " " in cut[limit // 2 :]:
        cut = cut.rsplit(" ", 1)[0]
    return cut.rstrip(" ,;:") + "…"
