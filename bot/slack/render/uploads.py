"""What an uploaded file turned out to contain, said at once in the thread."""

from __future__ import annotations

from datetime import UTC, datetime

from bot.slack.render.message import SlackMessage, bullets, context, message, sections
from bot.slack.render.text import code, escape, shorten
from domain.knowledge import IngestReport, ToolStatus

MAX_TOP_MESSAGES = 3


def upload_summary(report: IngestReport) -> SlackMessage:
    """Lines, time range, error/warning counts and the most repeated messages."""
    if report.status is ToolStatus.ERROR:
        return upload_refused(report.source, report.error or "it could not be read")
    facts = [f"{report.lines:,} lines"]
    span = _time_range(report.first_timestamp, report.last_timestamp)
    if span:
        facts.append(span)
    facts.append(f"{report.error_count:,} errors, {report.warning_count:,} warnings")
    text = f"📄 Read {code(report.source)}: " + " · ".join(facts)
    if report.redactions:
        text += f"\n🔒 Redacted {report.redactions} secret(s) before storing or analysing it."
    if report.top_messages:
        top = [
            f"×{count:,} {code(shorten(template, 160))}"
            for count, template in report.top_messages[:MAX_TOP_MESSAGES]
        ]
        text += "\n*Most repeated:*\n" + bullets(top)
    if report.status is ToolStatus.NO_DATA:
        text += "\nI found nothing I could search in it."
    notes = context("_I'll weigh it against the open evidence requests in my next answer._")
    return message([*sections(text), *notes], text=f"Read {report.source}: {report.lines} lines")


def upload_refused(filename: str, reason: str) -> SlackMessage:
    """A file that was not read, and why."""
    text = f"📄 I didn't read {code(filename)}: {escape(reason)}"
    return message(sections(text), text=text)


def _time_range(first: datetime | None, last: datetime | None) -> str:
    if first is None or last is None:
        return ""
    first, last = first.astimezone(UTC), last.astimezone(UTC)
    if first.date() == last.date():
        return f"{first:%Y-%m-%d %H:%M:%S}–{last:%H:%M:%S} UTC"
    return f"{first:%Y-%m-%d %H:%M}–{last:%Y-%m-%d %H:%M} UTC"
