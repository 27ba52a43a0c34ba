"""What stands out in a log: errors and warnings first, then what changed partway through.

Everything here works on the template table (one id per line) and a few numpy passes, so a
million-line log costs about as much as counting its templates; only the lines a finding cites
are read again.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from functools import cached_property

import numpy as np
import numpy.typing as npt

from domain.knowledge import Citation, Finding, FindingKind, KnowledgeBaseKind, log_message
from rag.chunking.changes import Change, rank_changes, surges, value_change
from rag.chunking.occurrences import Occurrences, occurrences
from rag.chunking.settings import MAX_SETTING_OCCURRENCES, dumped_settings
from rag.chunking.severity import WARN_RANK, severity_name
from rag.chunking.templates import MASK, TemplateTable
from rag.chunking.timestamps import TimestampParser

MAX_PROBLEMS = 8
MAX_CHANGES = 5
# Below this many lines there is no "before" to compare with: only errors and warnings count.
MIN_LINES_FOR_CHANGES = 50
# A message is new when it first appears after this share of the file (its quiet start).
BASELINE_SHARE = 0.1
MAX_EXAMPLE_CHARS = 240
# The lines a finding is shown with: a few before its line, a few after, and the rest of its
# entry (a stack trace) while the whole stays short.
CONTEXT_BEFORE = 3
CONTEXT_AFTER = 4
MAX_CONTEXT_LINES = 10
MAX_CONTEXT_CHARS = 300
# A continuation line (a stack frame) takes the time of the entry it belongs to, this far up.
_LOOK_BACK_LINES = 50
_MARKERS_ONLY = re.compile(r"(?:\[REDACTED[^\]]*\][\s,;:]*)+")


@dataclass(frozen=True)
class LogView:
    """One log's redacted lines, templates and timestamps, and where each template occurs."""

    source: str
    lines: list[str]
    table: TemplateTable
    parser: TimestampParser
    where: Occurrences

    @property
    def baseline(self) -> int:
        """Lines at the start that show what the file looked like before anything changed."""
        return max(int(len(self.lines) * BASELINE_SHARE), 1)

    def cite(self, line: int) -> Citation:
        """A citation of one line (0-based index), with its entry's time when known."""
        return Citation(
            kb=KnowledgeBaseKind.CASE,
            source=self.source,
            line_start=line + 1,
            timestamp=self.moment(line),
        )

    def moment(self, line: int) -> datetime | None:
        """The line's timestamp, or that of the entry it continues."""
        for index in range(line, max(line - _LOOK_BACK_LINES, -1), -1):
            moment = self.parser.parse(self.lines[index])
            if moment is not None:
                return moment
        return None

    def example(self, line: int) -> str:
        """The line as written, without its timestamp, cut to a readable length.

        What comes before the message (a ``[pod/…/container]``, the level, thread and logger)
        is kept whole, outside the length, so the message itself always shows.
        """
        text = " ".join(self.parser.without_timestamp(self.lines[line]).split())
        head = len(text) - len(log_message(text))
        return text[:head] + _cut(text[head:], MAX_EXAMPLE_CHARS)

    @cached_property
    def has_entries(self) -> bool:
        """Whether most lines carry a timestamp, so the others continue the entry above."""
        return bool(self.table.has_timestamp.mean() >= 0.5)

    def context(self, line: int) -> tuple[int, list[str]]:
        """The lines around one (0-based), as written: its 1-based start and the lines."""
        start = max(line - CONTEXT_BEFORE, 0)
        limit = min(start + MAX_CONTEXT_LINES, len(self.lines))
        end = min(line + 1 + CONTEXT_AFTER, limit)
        if self.has_entries:
            # The rest of its entry: a stack trace's frames say where the error came from.
            following = np.flatnonzero(self.table.has_timestamp[line + 1 : limit])
            entry_end = line + 1 + int(following[0]) if len(following) else limit
            end = max(end, entry_end)
        return start + 1, [_cut(text, MAX_CONTEXT_CHARS) for text in self.lines[start:end]]


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def is_ignored(signature: str) -> bool:
    """Whether a template is never a finding: a blank line, or one only of redaction marks."""
    return not signature or _MARKERS_ONLY.fullmatch(signature) is not None


def ignored_templates(table: TemplateTable) -> npt.NDArray[np.bool_]:
    """Per template: whether it is never a finding."""
    return np.array([is_ignored(text) for text in table.signatures], dtype=np.bool_)


def by_message(table: TemplateTable) -> TemplateTable:
    """The templates, with those that say the same thing at the same level made one.

    A message logged from two threads (``[nio-8080-exec-6]`` and ``[io-8080-exec-40]``) or by two
    loggers masks into two templates, yet reads the same once shown: made one, it is counted,
    ranked and cited as one finding, from its earliest line to its latest. Ids stay in order of
    first appearance, each with its earliest template's signature; redaction marks stay apart.
    """
    ignored = ignored_templates(table)
    ids: dict[tuple[int, int | str], int] = {}
    merged = np.empty(len(table.signatures), dtype=np.int32)
    for template, signature in enumerate(table.signatures):
        said: int | str = template if ignored[template] else _said(signature)
        merged[template] = ids.setdefault((int(table.ranks[template]), said), len(ids))
    if len(ids) == len(table.signatures):
        return table
    _, earliest = np.unique(merged, return_index=True)
    line_template = merged[table.line_template]
    return TemplateTable(
        signatures=[table.signatures[t] for t in earliest],
        counts=np.bincount(line_template, minlength=len(ids)).astype(np.int64),
        line_template=line_template,
        ranks=table.ranks[earliest],
        has_timestamp=table.has_timestamp,
    )


def _said(signature: str) -> str:
    """A template's message, without its level, thread, logger or syslog prefix."""
    # The prefix is told by its numbers (a pid, a thread id), which the signature masks.
    return log_message(signature.replace(MASK, "0"))


def log_findings(
    source: str, lines: list[str], table: TemplateTable, parser: TimestampParser
) -> list[Finding]:
    """Errors and warnings (worst, then most frequent), then what changed, most relevant first.

    Templates that differ only in who logged the message are read as one (``by_message``).
    """
    return message_findings(source, lines, by_message(table), parser)


def message_findings(
    source: str, lines: list[str], table: TemplateTable, parser: TimestampParser
) -> list[Finding]:
    """``log_findings`` of a table already read message by message (``by_message``)."""
    view = LogView(source, lines, table, parser, occurrences(table))
    ignored = ignored_templates(table)
    comparable = len(lines) >= MIN_LINES_FOR_CHANGES
    jumps = surges(view.where, view.baseline) if comparable else {}
    problems = [_problem(view, t, jumps) for t in _worst(view, ignored, jumps)]
    if not comparable:
        return problems
    starts = [f.since.line_start for f in problems if f.since and f.since.line_start]
    incident = min(starts, default=None)
    changes = rank_changes(_changes(view, ignored, jumps), incident)
    return problems + [_change(view, change) for change in changes[:MAX_CHANGES]]


def _worst(
    view: LogView, ignored: npt.NDArray[np.bool_], jumps: dict[int, tuple[int, float]]
) -> list[int]:
    """Errors and warnings that began partway through first, then those whose rate jumped, then
    the rest, each worst first, then most frequent: what changed is what an engineer reads first,
    however loud the background.

    Among those that began partway, the most surprising late start comes first: had a message
    been logged at an even rate all along, its ``n`` lines would all fall after the share ``p``
    of the file it was absent from with probability ``(1 - p) ** n``. Forty lines after a quiet
    70% of the file say far more than a hundred after the first 12%.
    """
    table = view.table
    candidates = np.flatnonzero((table.ranks >= WARN_RANK) & ~ignored)
    ranks = table.ranks[candidates].astype(np.int64)
    counts = table.counts[candidates]
    group = np.zeros(len(candidates), dtype=np.int64)
    surprise = np.zeros(len(candidates), dtype=np.float64)
    if len(view.lines) >= MIN_LINES_FOR_CHANGES:
        first = view.where.first_line[candidates]
        started_late = first >= view.baseline
        jumped = np.isin(candidates, np.fromiter(jumps, dtype=np.int64, count=len(jumps)))
        group = np.where(started_late, 2, np.where(jumped, 1, 0)).astype(np.int64)
        absent = np.minimum(first / len(view.lines), 1 - 1e-9)
        surprise = np.where(started_late, -counts * np.log1p(-absent), 0.0)
    order = np.lexsort((candidates, -counts, -ranks, -surprise, -group))
    return [int(t) for t in candidates[order][:MAX_PROBLEMS]]


def _problem(view: LogView, template: int, jumps: dict[int, tuple[int, float]]) -> Finding:
    first = int(view.where.first_line[template])
    finding = _finding(view, template, FindingKind.PROBLEM, first)
    new = len(view.lines) >= MIN_LINES_FOR_CHANGES and first >= view.baseline
    if new:
        finding = finding.model_copy(update={"new": True, "since": finding.first})
    if template in jumps and not new:
        bucket, factor = jumps[template]
        since = view.cite(view.where.first_in(template, bucket))
        finding = finding.model_copy(update={"since": since, "rate_factor": round(factor, 1)})
    return finding


def _finding(view: LogView, template: int, kind: FindingKind, example_line: int) -> Finding:
    first = int(view.where.first_line[template])
    context_start, context = view.context(example_line)
    return Finding(
        kind=kind,
        severity=severity_name(int(view.table.ranks[template])),
        count=int(view.table.counts[template]),
        template=view.table.signatures[template],
        example=view.example(example_line),
        first=view.cite(first),
        last=view.cite(view.where.last_line(template)),
        context_start=context_start,
        context=context,
    )


def _changes(
    view: LogView, ignored: npt.NDArray[np.bool_], jumps: dict[int, tuple[int, float]]
) -> list[Change]:
    table, where = view.table, view.where
    quiet = ~ignored & (table.ranks < WARN_RANK)
    # Settings dumped one per line (Kafka's ``\tmax.poll.records = 500``), continuation lines
    # or not, are compared key by key.
    found = [
        Change(s.template, FindingKind.CHANGED, s.line, s.count, changed=s.changed, first=s.first)
        for s in dumped_settings(view.lines, table, where, quiet)
    ]
    eligible = quiet.copy()
    eligible[[change.template for change in found]] = False
    # Continuation lines (stack frames) belong to their entry: they are not events of their own.
    if view.has_entries:
        eligible &= table.has_timestamp[where.first_line]
    for template in np.flatnonzero(eligible):
        change = _change_of(view, int(template), jumps)
        if change is not None:
            found.append(change)
    return found


def _change_of(view: LogView, t: int, jumps: dict[int, tuple[int, float]]) -> Change | None:
    """What changed about one message: a setting's value, else its being new, else its rate."""
    table, where = view.table, view.where
    # A setting logged again with another value says more than that its line is new.
    if 2 <= table.counts[t] <= MAX_SETTING_OCCURRENCES:
        changed = value_change(view.lines, where, t, table.signatures[t], view.parser)
        if changed is not None:
            return changed
    first = int(where.first_line[t])
    if first >= view.baseline:
        return Change(t, FindingKind.NEW, first, int(table.counts[t]))
    if t in jumps:
        line = where.first_in(t, jumps[t][0])
        return Change(t, FindingKind.SURGE, line, int(table.counts[t]), jumps[t][1])
    return None


def _change(view: LogView, change: Change) -> Finding:
    since = view.cite(change.line)
    finding = _finding(view, change.template, change.kind, change.line)
    update: dict[str, object] = {"since": since}
    if change.kind is FindingKind.NEW:
        update["new"] = True
    elif change.kind is FindingKind.SURGE:
        update["rate_factor"] = round(change.factor or 0.0, 1)
    else:
        update["changed"] = change.changed
    if change.first is not None:
        update.update(first=view.cite(change.first), count=change.count)
    return finding.model_copy(update=update)
