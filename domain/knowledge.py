"""Knowledge and evidence retrieval as the core sees it: scopes, citations, results, the port."""

from __future__ import annotations

import re
from collections.abc import Sequence
from enum import StrEnum
from typing import Protocol

from pydantic import AwareDatetime, Field

from domain.base import DomainModel

# A log message is known by what it says: where it was collected from (a pod, Loki labels, a
# syslog host), who logged it (the thread, the logger) and its level prefix are left out when it
# is shown, and when messages are told apart.
_LEVELS = (
    r"(?:ERROR|WARN(?:ING)?|INFO|DEBUG|TRACE|FATAL|CRITICAL|SEVERE|NOTICE"
    r"|\[(?:error|warn|notice|crit)\]|error:|fatal:|warning:)"
)
# What a collector puts before the line the program wrote: ``kubectl logs --prefix``
# (``[pod/name/container]``; ``[pod<*>]`` once masked, the pod's path being one variable) or
# logcli's stream labels (``{app="x", pod="y"}``), then perhaps the program's own timestamp.
_COLLECTOR = re.compile(
    r"^\s*(?:\[pod(?:[/0]|<\*>)[^\]\s]*\]|\{(?:[^{}\"]|\"(?:[^\"\\]|\\.)*\")*\})[ \t]"
    r"(?:\s*\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(?:[.,]\d+)?(?:Z|[+-]\d\d:?\d\d)?\s+)?"
)
_PREAMBLE = re.compile(
    r"^[-\s]*(?:\d+\s+)?"  # a dash or a thread id
    r"(?:\S+\s+[\w./()-]+\[\d+\]:\s+)?"  # syslog: host and program[pid], sshd(pam_unix)[pid]
    r"(?:" + _LEVELS + r"\s+)?"
    r"(?:\d+\s+---\s+\[[^\]]*\]\s+[\w.$]+\s*:\s+)?"  # Spring Boot: pid --- [thread] logger :
    r"(?:(?:\[[^\]]*\]\s*)+(?=(?:[\w$]+\.)+[\w$]+(?::|\s+-)\s|-\s))?"  # [thread] before a logger
    r"(?:(?:[\w$]+\.)+[\w$]+(?::|\s+-)\s+|-\s+)?"  # the logger
    # Kafka's client and the like name their instance first: [Consumer clientId=…, groupId=…].
    r"(?:\[(?:[A-Z]\w*\s+)?[\w.-]+=[^\]]*\]\s+(?=\S))?"
)


def collector_prefix(line: str) -> str:
    """What a log collector put before the line (a ``[pod/…/container]``, Loki labels), or ""."""
    match = _COLLECTOR.match(line)
    return match[0] if match else ""


def log_message(line: str) -> str:
    """What a log line says, without its collector, level, thread, logger or syslog prefix.

    The line comes without its timestamp; when nothing else is left, the whole line is returned.
    """
    said = line[len(collector_prefix(line)) :]
    return _PREAMBLE.sub("", said) or said or line


class KnowledgeBaseKind(StrEnum):
    """The three knowledge bases, each with its own retrieval strategy."""

    CASE = "case"
    """Evidence uploaded into one case (forensic: file:line (timestamp) citations)."""
    PERSONAL = "personal"
    """One person's runbooks (procedural: title/section citations)."""
    GLOBAL = "global"
    """The workspace's shared knowledge base (educational: article citations)."""


class ToolStatus(StrEnum):
    """Outcome of a tool call, so the model (or person) can correct the query."""

    OK = "ok"
    NO_DATA = "no_data"
    ERROR = "error"


class Citation(DomainModel):
    """Where a retrieved excerpt came from."""

    kb: KnowledgeBaseKind
    source: str
    """File name, runbook title or article title."""
    line_start: int | None = Field(default=None, ge=1)
    line_end: int | None = Field(default=None, ge=1)
    timestamp: AwareDatetime | None = None
    section: str | None = None

    def label(self) -> str:
        """Human form: ``app.log:1045-1047 (14:32:15Z)`` or ``Runbook › Section``."""
        if self.line_start is None:
            return f"{self.source} › {self.section}" if self.section else self.source
        lines = str(self.line_start)
        if self.line_end is not None and self.line_end != self.line_start:
            lines = f"{self.line_start}-{self.line_end}"
        when = f" ({self.timestamp.strftime('%H:%M:%SZ')})" if self.timestamp else ""
        return f"{self.source}:{lines}{when}"


class RetrievedChunk(DomainModel):
    """An excerpt with its citation and relevance."""

    text: str
    citation: Citation
    score: float
    severity: str | None = None


class KnowledgeResult(DomainModel):
    """What a knowledge tool returns: status, the exact query, excerpts and maybe an answer."""

    status: ToolStatus
    query: str
    """The exact query that was run (after any rewriting), so it can be corrected."""
    kb: KnowledgeBaseKind
    chunks: list[RetrievedChunk] = Field(default_factory=list)
    answer: str | None = None
    """A synthesised answer citing the chunks; without an LLM the excerpts are the answer."""
    error: str | None = None
    filters: str | None = None
    """Filters read from the query (file, severity, time range) that narrowed the search."""
    still_indexing: list[str] = Field(default_factory=list)
    """Files of this scope whose vectors are still being computed: the search found them by
    their full text only (see ``still_indexing_note``)."""


class FindingKind(StrEnum):
    """Why a message in an uploaded log stands out."""

    PROBLEM = "problem"
    """Lines at WARN level or worse."""
    NEW = "new"
    """A message that first appears partway through the file."""
    SURGE = "surge"
    """A message whose rate jumps to many times its earlier rate."""
    CHANGED = "changed"
    """The same message with a setting's value changed (``maximumPoolSize=50`` then ``10``)."""


class Finding(DomainModel):
    """One thing worth looking at in an uploaded log, cited where it occurs."""

    kind: FindingKind
    severity: str | None = None
    """The level its lines name (ERROR, WARN…), None when they name none."""
    count: int = Field(ge=1)
    """How many lines carry this message."""
    template: str
    """The message with its variable parts masked: what its occurrences share."""
    example: str
    """A real occurrence with its values (secrets already redacted), without its timestamp."""
    first: Citation
    last: Citation
    new: bool = False
    """It first appears partway through the file."""
    since: Citation | None = None
    """Where the change starts: the first line of a rate jump or of a changed value."""
    rate_factor: float | None = Field(default=None, ge=0)
    """How many times its earlier rate the message reached, for a rate jump."""
    changed: str | None = None
    """What changed, before and after, as the log wrote it: ``max.poll.records = 500 →
    max.poll.records = 5000``."""
    context_start: int | None = Field(default=None, ge=1)
    """The line number (1-based) of the first line of ``context``."""
    context: list[str] = Field(default_factory=list)
    """The lines around the line the example comes from (its first line; where it changed or
    jumped for a change), as written and redacted, each cut to a readable length: a few before,
    a few after, and the rest of its entry (a stack trace) within the limit."""

    @property
    def message(self) -> str:
        """The example's message, without its level, thread, logger or syslog prefix."""
        return log_message(self.example)

    def summary(self) -> str:
        """One plain line: what, how often, and where it starts and ends."""
        what = f"{self.severity} ×{self.count}" if self.severity else f"×{self.count}"
        if self.kind is FindingKind.CHANGED and self.changed and self.since:
            return f"changed at {self.since.label()}: {self.changed} ({self.example})"
        where = f"first {self.first.label()}"
        if self.count > 1:
            where += f", last {self.last.label()}"
        notes = ["new partway through the file"] if self.new else []
        if self.rate_factor is not None and self.since is not None:
            notes.append(f"rate ×{self.rate_factor:.0f} from {self.since.label()}")
        extra = f" [{'; '.join(notes)}]" if notes else ""
        return f"{what}{extra} {where}: {self.example}"


class IngestReport(DomainModel):
    """What ingesting one file found, reported to the thread at once."""

    source: str
    status: ToolStatus
    lines: int = Field(default=0, ge=0)
    size_bytes: int = Field(default=0, ge=0)
    chunks: int = Field(default=0, ge=0)
    redactions: int = Field(default=0, ge=0)
    first_timestamp: AwareDatetime | None = None
    last_timestamp: AwareDatetime | None = None
    error_count: int = Field(default=0, ge=0)
    warning_count: int = Field(default=0, ge=0)
    top_messages: list[tuple[int, str]] = Field(default_factory=list)
    """The most repeated messages (count, masked template); redaction markers left out."""
    kind: str | None = None
    """How the file was read: log, markdown, config or text."""
    findings: list[Finding] = Field(default_factory=list)
    """For logs: errors and warnings (worst, then most frequent), then what changed."""
    timestamps_unrecognised: bool = False
    """A log whose timestamps could not be read, so it has no time range."""
    error: str | None = None
    """Why the file was refused or failed (binary, too large, unreadable…)."""
    still_indexing: bool = False
    """Searchable by its full text already; its vectors (search by meaning) follow shortly."""


def still_indexing_note(files: Sequence[str]) -> str:
    """One sentence for people and the model: these files are searched by full text only yet."""
    one = len(files) == 1
    return (
        f"{', '.join(files)} {'is' if one else 'are'} still being indexed for search by meaning; "
        f"until then, searches cover {'its' if one else 'their'} full text only."
    )


class KnowledgePort(Protocol):
    """Retrieval and ingestion, with access control applied at this boundary."""

    async def search_case_evidence(
        self,
        *,
        team_id: str,
        case_id: str,
        query: str,
        conversation: Sequence[str] = (),
        limit: int = 8,
    ) -> KnowledgeResult:
        """Search one case's evidence (only within that case)."""
        ...

    async def search_personal_runbooks(
        self,
        *,
        team_id: str,
        user_id: str,
        query: str,
        conversation: Sequence[str] = (),
        limit: int = 5,
    ) -> KnowledgeResult:
        """Search one person's runbooks (only for that person)."""
        ...

    async def search_global(
        self,
        *,
        team_id: str,
        query: str,
        conversation: Sequence[str] = (),
        limit: int = 5,
    ) -> KnowledgeResult:
        """Search the workspace's global knowledge base."""
        ...

    async def ingest_case_file(
        self, *, team_id: str, case_id: str, filename: str, content: bytes
    ) -> IngestReport:
        """Redact, chunk and index an uploaded file as evidence of the case.

        The report may come once the file is searchable by its full text, its vectors still to
        come (``IngestReport.still_indexing``); searches meanwhile name it in their results.
        """
        ...

    async def delete_case_evidence(self, *, team_id: str, case_id: str) -> int:
        """Remove a closed case's evidence; return how many chunks were removed."""
        ...

    async def save_document(
        self,
        *,
        team_id: str,
        kb: KnowledgeBaseKind,
        scope_id: str | None,
        title: str,
        markdown: str,
        case_id: str | None = None,
    ) -> IngestReport:
        """Keep a generated report or runbook in a knowledge base; ``case_id`` names the case it
        was written from, so a later case can find it as "seen before"."""
        ...

    async def find_similar_runbook(
        self, *, team_id: str, text: str, threshold: float = 0.85
    ) -> tuple[str, float] | None:
        """The most similar existing runbook's title and similarity, when above the threshold."""
        ...
