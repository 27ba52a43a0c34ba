"""What an uploaded file turned out to contain: its findings, each cited, in a few lines.

Sized for a phone: at most five findings, one line each, errors and warnings first, then what
changed; the counts go in one short context line.
"""

from __future__ import annotations

from datetime import UTC, datetime

from slack_sdk.models.blocks import Block

from bot.slack.render.message import SlackMessage, bullets, context, message, sections
from bot.slack.render.text import code, escape, shorten
from domain.knowledge import Finding, FindingKind, IngestReport, ToolStatus

MAX_FINDINGS = 5
# When errors fill the list, this many places stay for what changed before them.
CHANGE_PLACES = 2
GIST_CHARS = 90
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


def finding_line(finding: Finding) -> str:
    """One line: what kind, how often, the message with its values, and where."""
    first = code(finding.first.label())
    if finding.kind is FindingKind.CHANGED and finding.since is not None:
        return f"🔧 *Changed* {escape(finding.changed or '')} · {code(finding.since.label())}"
    # The icon says the level; on a phone the pod, thread, logger and syslog prefix only push
    # the message out of sight (the model is given the whole line and those around it).
    gist = escape(shorten(finding.message, GIST_CHARS))
    if finding.kind is FindingKind.SURGE and finding.since is not None:
        rate = f"×{finding.rate_factor:.0f} rate" if finding.rate_factor else "faster"
        return f"📈 *{rate}* {gist} · from {code(finding.since.label())}"
    span = first if finding.count == 1 else f"{first} → {code(finding.last.label())}"
    if finding.kind is FindingKind.NEW:
        times = f" ×{finding.count:,}" if finding.count > 1 else ""
        return f"🆕 *New{times}* {gist} · {span}"
    new = ", new" if finding.new else ""
    icon = _ICONS.get(finding.severity or "", "🔴")
    return f"{icon} *{finding.severity} ×{finding.count:,}{new}* {gist} · {span}"


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
