"""The record of one tool call, kept by the caller: who was asked what, how long, what came back."""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import datetime
from enum import StrEnum

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field

from domain.redaction import redact_text


class ToolOutcome(StrEnum):
    """How a call ended: the model reads `ok`, `no_data` or `error`; `refused` never ran."""

    OK = "ok"
    NO_DATA = "no_data"
    ERROR = "error"
    REFUSED = "refused"


class ToolCallRecord(BaseModel):
    """One audited call (or refusal), with its arguments redacted."""

    model_config = ConfigDict(frozen=True)

    server: str
    tool: str
    arguments: str
    """The arguments as JSON, redacted."""
    started_at: AwareDatetime
    duration_ms: int = Field(ge=0)
    bytes: int = Field(ge=0)
    """Size of the reply as the server sent it (its text), before any cut."""
    kept_bytes: int = Field(ge=0)
    """Size of the evidence kept after the cap and redaction."""
    outcome: ToolOutcome
    detail: str = ""
    """One sentence saying what went wrong; empty when the call answered."""


def arguments_text(arguments: Mapping[str, object]) -> str:
    """The arguments as compact JSON with secrets redacted, fit for a record or a prompt."""
    text = json.dumps(arguments, ensure_ascii=False, sort_keys=True, default=str)
    return redact_text(text)


def record(
    *,
    server: str,
    tool: str,
    arguments: Mapping[str, object],
    started_at: datetime,
    duration_ms: int,
    outcome: ToolOutcome,
    detail: str = "",
    received: int = 0,
    kept: int = 0,
) -> ToolCallRecord:
    """Build the record of one call."""
    return ToolCallRecord(
        server=server,
        tool=tool,
        arguments=arguments_text(arguments),
        started_at=started_at,
        duration_ms=max(duration_ms, 0),
        bytes=received,
        kept_bytes=kept,
        outcome=outcome,
        detail=redact_text(detail),
    )
