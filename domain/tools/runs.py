"""Tool runs kept with a case: asked for by the model, run once a person consents (or `trust`).

A run is `pending` until someone clicks Run (then `approved`) or Skip (`skipped`); a trusted
server's run is `approved` at once. Once called it is `ran`, with its outcome, the sentence people
read, the citation the model cites and the audit record. Only these functions change a run.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from enum import StrEnum

from pydantic import Field

from domain.base import DomainModel, new_id
from domain.errors import DomainError
from domain.people import mention, named
from domain.tools.audit import ToolCallRecord, ToolOutcome

TRUST = "trust"
"""Who consented to a run of a trusted server: the operator's `trust`, not a person."""
_TIME_KEYS = (("start", "end"), ("from", "to"), ("start_time", "end_time"))


class ToolRunStatus(StrEnum):
    """Where a run stands."""

    PENDING = "pending"
    """Waiting for a person's Run or Skip."""
    APPROVED = "approved"
    """Consented to (or trusted): runs before the next turn."""
    RAN = "ran"
    SKIPPED = "skipped"


class ToolRunError(DomainError):
    """A run that cannot be consented to or skipped now (already run, skipped or unknown)."""


class ToolRun(DomainModel):
    """One tool run of a case, from the model's request to its result."""

    run_id: str = Field(default_factory=lambda: new_id("tool"))
    number: int = Field(ge=1)
    """The run's number in its case (#2), part of its citation."""
    server: str
    tool: str
    arguments: str
    """The arguments as compact JSON, exactly as they are sent."""
    reason: str = ""
    """Why the model asked for it."""
    request_id: str | None = None
    """The evidence request it would answer, if the model attached it to one."""
    turn: int = Field(default=0, ge=0)
    """The turn it was asked in."""
    status: ToolRunStatus = ToolRunStatus.PENDING
    consented_by: str | None = None
    """A Slack user id, or `trust`; None while pending or when skipped."""
    skipped_by: str | None = None
    outcome: ToolOutcome | None = None
    sentence: str = ""
    """One sentence for people and the model (what answered, or what went wrong)."""
    citation: str = ""
    """What the model cites: ``prometheus:execute_range_query#2 (14:05–14:35Z)``."""
    record: ToolCallRecord | None = None

    @property
    def label(self) -> str:
        """``server tool``, as people read it."""
        return f"{self.server} {self.tool}"

    @property
    def is_open(self) -> bool:
        """Not yet run or skipped."""
        return self.status in (ToolRunStatus.PENDING, ToolRunStatus.APPROVED)


def citation_of(server: str, tool: str, number: int, arguments: str) -> str:
    """``server:tool#n``, with the time range the arguments ask for when they name one."""
    base = f"{server}:{tool}#{number}"
    span = _time_span(arguments)
    return f"{base} ({span})" if span else base


def consent(run: ToolRun, *, by: str) -> None:
    """A person clicked Run (or the server is trusted, ``by`` = TRUST)."""
    if run.status is not ToolRunStatus.PENDING:
        raise ToolRunError(f"{run.label} #{run.number} is already {run.status.value}")
    run.status, run.consented_by = ToolRunStatus.APPROVED, by


def skip(run: ToolRun, *, by: str) -> None:
    """A person clicked Skip."""
    if run.status is not ToolRunStatus.PENDING:
        raise ToolRunError(f"{run.label} #{run.number} is already {run.status.value}")
    run.status, run.skipped_by = ToolRunStatus.SKIPPED, by


def ran(
    run: ToolRun, *, outcome: ToolOutcome, sentence: str, record: ToolCallRecord | None
) -> None:
    """The call came back (or was refused): its outcome and audit record are kept."""
    if run.status is not ToolRunStatus.APPROVED:
        raise ToolRunError(f"{run.label} #{run.number} was not approved")
    run.status, run.outcome, run.sentence, run.record = ToolRunStatus.RAN, outcome, sentence, record
    run.citation = citation_of(run.server, run.tool, run.number, run.arguments)


def _time_span(arguments: str) -> str:
    try:
        values = json.loads(arguments or "{}")
    except json.JSONDecodeError:
        return ""
    if not isinstance(values, dict):
        return ""
    for first, last in _TIME_KEYS:
        start, end = _moment(values.get(first)), _moment(values.get(last))
        if start and end:
            return f"{start:%H:%M}–{end:%H:%M}Z"
    return ""


def _moment(value: object) -> datetime | None:
    """A Unix time (number or numeric text) or an ISO 8601 time, in UTC; None otherwise."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return datetime.fromtimestamp(value, UTC)
    if not isinstance(value, str) or not value.strip():
        return None
    text = value.strip()
    try:
        return datetime.fromtimestamp(float(text), UTC)
    except (ValueError, OverflowError):
        pass
    try:
        parsed = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    return parsed.astimezone(UTC) if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def run_line(run: ToolRun) -> str:
    """One run as the case report and `/fm status` list it: the call, who consented, how it
    went (people as `{@U123}`)."""
    who = "trusted server" if run.consented_by == TRUST else mention(run.consented_by)
    call = f"{run.label} {run.arguments}"
    if run.status is ToolRunStatus.SKIPPED:
        return f"{call}: skipped by {mention(run.skipped_by)}"
    if run.status is not ToolRunStatus.RAN or run.record is None:
        return f"{call}: {run.status.value}"
    record = run.record
    size = f"{record.kept_bytes / 1024:.1f} KB kept"
    took = f"{record.duration_ms:,} ms"
    cite = f" · {run.citation}" if run.outcome is ToolOutcome.OK else ""
    return f"{call}: {record.outcome.value} ({took}, {size}), run by {who}{cite}"


def report_section(runs: list[ToolRun]) -> str:
    """The case report's section on the tools run (markdown), or '' when none was asked for."""
    if not runs:
        return ""
    lines = "\n".join(f"- {named(run_line(run))}" for run in runs)
    return f"## Tools run\n{lines}\n"
