"""What an uploaded file turned out to contain: its findings, each cited, in a few lines.

Sized for a phone: at most three findings, one line each, errors and warnings first, then what
changed; the file is named once, above them, so each cites only its lines and times (`:40–148
(14:05–14:13)`); the counts go in one short context line. Every finding, cited in full, is in the
answer's Details (`file_details`).
"""

from __future__ import annotations

from datetime import UTC, datetime

from slack_sdk.models.blocks import Block

from bot.slack.render.message import SlackMessage, bullets, context, message, sections
from bot.slack.render.text import code, escape, shorten
from domain.knowledge import Citation, Finding, FindingKind, IngestReport, ToolStatus

MAX_FINDINGS = 3
# When errors fill the list, this many places stay for what changed before them.
CHANGE_PLACES = 1
GIST_CHARS = 80
_CHANGE_ORDER = (FindingKind.CHANGED, FindingKind.SURGE, FindingKind.NEW)
_ICONS = {"CRITICAL": "🔴", "ERROR": "🔴", "WARN": "🟠"}


def upload_findings(report: IngestReport) -> list[Block]:
    """The findings of one upload as blocks: what stands out, cited by line, then the counts."""
    if report.status is ToolStatus.ERROR:
        return _refused_blocks(report.source, report.error or "it could not be read")
    shown = shown_findings(report.findings)
    head = f"📄 {code(report.source)}"
    if shown:
        text = f"{head} — what stands out:\n" + bullets(finding_line(f) for f in shown)
    elif report.status is ToolStatus.NO_DATA:
        text = f"{head}: I found nothing I could search in it."
    elif report.kind == "log":
        text = f"{head}: no errors, warnings or changes stand out."
    else:
        text = f"{head}: read, and searchable from now on."
    counts = counts_line(report, hidden=len(report.findings) - len(shown))
    return [*sections(text), *context(counts)]


def upload_summary(report: IngestReport) -> SlackMessage:
    """The findings as a message of their own, saying they will be weighed in the next answer."""
    blocks = upload_findings(report)
    if report.status is not ToolStatus.ERROR:
        blocks += context("_I'll weigh it against the open evidence requests in my next answer._")
    return message(blocks)


def upload_lead(report: IngestReport) -> SlackMessage:
    """The findings as the opening of the answer the upload gets."""
    return message(upload_findings(report))


def upload_refused(filename: str, reason: str) -> SlackMessage:
    """A file that was not read, and why."""
    blocks = _refused_blocks(filename, reason)
    return message(blocks, text=f"📄 I didn't read {code(filename)}: {escape(reason)}")


def _refused_blocks(filename: str, reason: str) -> list[Block]:
    return sections(f"📄 I didn't read {code(filename)}: {escape(reason)}")


def shown_findings(findings: list[Finding]) -> list[Finding]:
    """Errors and warnings first, keeping a place or two for what changed, five at most."""
    problems = [f for f in findings if f.kind is FindingKind.PROBLEM]
    # A changed value explains most (a setting cut at a deploy), then a rate jump, then a message
    # that is merely new; each kind keeps its own order.
    changes = sorted(
        (f for f in findings if f.kind is not FindingKind.PROBLEM),
        key=lambda f: _CHANGE_ORDER.index(f.kind),
    )
    kept_changes = min(len(changes), CHANGE_PLACES, MAX_FINDINGS)
    kept_problems = problems[: MAX_FINDINGS - kept_changes]
    return kept_problems + changes[: MAX_FINDINGS - len(kept_problems)]


def finding_line(finding: Finding, *, full: bool = False) -> str:
    """One line: what kind, how often, the message with its values, and where (``full``: each
    citation with its file, as the Details show it; else its lines and times only)."""
    if finding.kind is FindingKind.CHANGED and finding.since is not None:
        return f"🔧 *Changed* {escape(finding.changed or '')} · {_cite(finding.since, full)}"
    # The icon says the level; on a phone the pod, thread, logger and syslog prefix only push
    # the message out of sight (the model is given the whole line and those around it).
    gist = escape(shorten(finding.message, GIST_CHARS))
    if finding.kind is FindingKind.SURGE and finding.since is not None:
        rate = f"×{finding.rate_factor:.0f} rate" if finding.rate_factor else "faster"
        return f"📈 *{rate}* {gist} · from {_cite(finding.since, full)}"
    span = _span(finding, full)
    if finding.kind is FindingKind.NEW:
        times = f" ×{finding.count:,}" if finding.count > 1 else ""
        return f"🆕 *New{times}* {gist} · {span}"
    new = ", new" if finding.new else ""
    icon = _ICONS.get(finding.severity or "", "🔴")
    return f"{icon} *{finding.severity} ×{finding.count:,}{new}* {gist} · {span}"


def _cite(citation: Citation, full: bool) -> str:
    """``full``: `app.log:40 (14:05:28Z)`; else `:40` (14:05:28), its file named above it."""
    if full:
        return code(citation.label())
    when = f" ({_utc(citation.timestamp):%H:%M:%S})" if citation.timestamp else ""
    return f"{code(f':{_lines(citation)}')}{when}"


def _span(finding: Finding, full: bool) -> str:
    """Where a message occurs: one line, or its first and last (short: `:40–148` (14:05–14:13))."""
    first, last = finding.first, finding.last
    if finding.count == 1 or first.line_start is None or last.line_start is None:
        return _cite(first, full)
    if full:
        return f"{code(first.label())} → {code(last.label())}"
    when = ""
    if first.timestamp and last.timestamp:
        when = f" ({_utc(first.timestamp):%H:%M}–{_utc(last.timestamp):%H:%M})"
    return f"{code(f':{first.line_start}–{last.line_end or last.line_start}')}{when}"


def _utc(moment: datetime) -> datetime:
    return moment.astimezone(UTC)


def _lines(citation: Citation) -> str:
    start, end = citation.line_start, citation.line_end
    if start is None:
        return "?"
    return f"{start}–{end}" if end is not None and end != start else str(start)


def file_details(report: IngestReport) -> str:
    """Every finding of a file, each cited in full, then its counts: what its Details show."""
    head = f"📄 {code(report.source)}"
    if not report.findings:
        return f"{head}: nothing stands out.\n{counts_line(report)}"
    lines = bullets(finding_line(f, full=True) for f in report.findings)
    return f"{head} — every finding:\n{lines}\n{counts_line(report)}"


def counts_line(report: IngestReport, *, hidden: int = 0) -> str:
    """Lines, time range, errors and warnings, secrets redacted: one short line."""
    facts = [f"{report.lines:,} lines"]
    span = _time_range(report.first_timestamp, report.last_timestamp)
    if span:
        facts.append(span)
    elif report.timestamps_unrecognised:
        facts.append("timestamps not recognised, so no time range")
    if report.kind == "log":
        facts.append(f"{report.error_count:,} errors, {report.warning_count:,} warnings")
    if report.redactions:
        secrets = "1 secret was" if report.redactions == 1 else f"{report.redactions} secrets were"
        facts.append(f"🔒 {secrets} redacted")
    if hidden > 0:
        facts.append(f"+{hidden} more finding{'s' if hidden > 1 else ''}")
    return " · ".join(facts)


def _time_range(first: datetime | None, last: datetime | None) -> str:
    if first is None or last is None:
        return ""
    first, last = first.astimezone(UTC), last.astimezone(UTC)
    if first.date() == last.date():
        return f"{first:%Y-%m-%d %H:%M:%S}–{last:%H:%M:%S} UTC"
    return f"{first:%Y-%m-%d %H:%M}–{last:%Y-%m-%d %H:%M} UTC"


NO_VISION = (
    "I can't read images with the configured model; paste the panel's query or the error text."
)


def image_lead(filename: str) -> SlackMessage:
    """A screenshot the model reads with this answer (its text is not redacted: no OCR)."""
    text = f"🖼️ {code(filename)}: read as an image by the model (text in images is not redacted)."
    return message(context(text), text=text)


def no_vision() -> SlackMessage:
    """Said once per case when the configured model does not take images."""
    return message(sections(f"🖼️ {NO_VISION}"), text=NO_VISION)
