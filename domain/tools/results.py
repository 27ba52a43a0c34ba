"""A tool's reply as evidence: redacted like an upload, capped in bytes, never an exception.

The text is cut at a line boundary before it is redacted, so no line is split (a secret is never
cut in two where redaction could miss its half) and a 50 MB reply costs no more than the cap to
clean. What is cut is said in a last line.
"""

from __future__ import annotations

from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict

from domain.redaction import redact
from domain.tools.audit import ToolCallRecord, ToolOutcome

DEFAULT_MAX_BYTES = 64 * 1024


@dataclass(frozen=True)
class Evidence:
    """Reply text ready to store and show the model, and what was done to it."""

    text: str
    received: int
    truncated: bool
    redactions: int

    @property
    def kept(self) -> int:
        """Bytes kept."""
        return len(self.text.encode())


class ToolResult(BaseModel):
    """What a call gives the caller: evidence text or one sentence, and the record to store."""

    model_config = ConfigDict(frozen=True)

    outcome: ToolOutcome
    text: str = ""
    """The redacted, capped reply (for `ok` and for a tool's own error message)."""
    sentence: str = ""
    """One sentence for people and the model when the call did not answer with data."""
    truncated: bool = False
    record: ToolCallRecord

    @property
    def answered(self) -> bool:
        """Whether the tool ran and answered with data."""
        return self.outcome is ToolOutcome.OK


def as_evidence(raw: str, *, max_bytes: int = DEFAULT_MAX_BYTES) -> Evidence:
    """Cap `raw` to `max_bytes` on a line boundary, then redact it."""
    data = raw.encode("utf-8", errors="replace")
    received = len(data)
    truncated = received > max_bytes
    text = raw
    if truncated:
        head = data[:max_bytes].decode("utf-8", errors="ignore")
        cut = head.rfind("\n")
        head = head[: cut + 1] if cut > 0 else head
        kept = len(head.encode())
        note = f"[cut: the tool returned {received:,} bytes; the first {kept:,} are kept]"
        text = head + ("" if head.endswith("\n") else "\n") + note
    cleaned = redact(text)
    return Evidence(cleaned.text, received, truncated, cleaned.count)
