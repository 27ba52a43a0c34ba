"""Alert messages: the alert in the alert channel (the case thread's parent) and its updates."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

from slack_sdk.models.blocks import Block

from bot.slack.render.message import SlackMessage, bullets, context, header, message, sections
from bot.slack.render.text import escape, shorten
from domain.workflows.alert_groups import AlertGroupRecord
from domain.workflows.incident import resource_of
from domain.workflows.signals import Signal, SignalGroup, SignalStatus

MAX_LISTED = 10
STATUS_TITLES = {SignalStatus.FIRING: "🔥 Firing", SignalStatus.RESOLVED: "✅ Resolved"}


def alert_message(record: AlertGroupRecord) -> SlackMessage:
    """The alert as the channel shows it: what fires, where, since when, how often notified."""
    group = record.latest
    title = f"{STATUS_TITLES[group.status]}: {group.title()}"
    blocks: list[Block] = [header(title)]
    description = _description(group)
    if description:
        blocks += sections(escape(description))
    blocks += context(_facts(record))
    if len(group.alerts) > 1:
        blocks += sections(_listing(group.alerts, group.truncated_alerts))
    return message(blocks, text=title)


def alert_text(group: SignalGroup) -> str:
    """The alert in words, as the case's first message (the conversation the model sees)."""
    lines = [f"Alert {group.status.value}: {group.title()}"]
    description = _description(group)
    if description:
        lines.append(description)
    lines.extend(f"- {_line(alert)}" for alert in group.alerts[:MAX_LISTED])
    return "\n".join(lines)


def resolved_note(group: SignalGroup, *, at: datetime) -> SlackMessage:
    """Said in the case thread when the group resolves."""
    text = (
        f"✅ *Alert resolved* at {_clock(at)}: {escape(group.title())}. If a remediation ran, tell "
        "me here whether it worked; the case stays open until someone resolves it."
    )
    return message(sections(text), text=f"Alert resolved: {group.title()}")


def firing_again_note(group: SignalGroup) -> SlackMessage:
    """Said in the case thread when a resolved group fires again."""
    text = f"🔥 *Firing again*: {escape(group.title())}"
    return message(sections(text), text=f"Firing again: {group.title()}")


def joined_note(group: SignalGroup, fingerprints: Sequence[str]) -> SlackMessage:
    """Said in the case thread when more alerts join the group."""
    joined = [a for a in group.alerts if a.fingerprint in set(fingerprints)]
    text = f"➕ *{len(joined)} more alert(s) joined this group:*\n" + _listing(joined, 0)
    return message(sections(text), text=f"{len(joined)} more alert(s) joined")


def _description(group: SignalGroup) -> str:
    primary = group.primary
    text = primary.annotations.get("description") or group.common_annotations.get("description")
    return shorten(text, 600) if text else ""


def _facts(record: AlertGroupRecord) -> str:
    group = record.latest
    primary = group.primary
    severity = primary.labels.get("severity") or group.common_labels.get("severity")
    facts = [f"severity *{escape(severity)}*" if severity else "no severity label"]
    resource = resource_of({**group.common_labels, **primary.labels})
    if resource is not None:
        facts.append(escape(resource.label()))
    facts.append(f"{len(group.firing)} of {len(group.alerts)} firing")
    # The alert's own start, not when it reached the bot.
    facts.append(f"started {_clock(primary.starts_at or record.first_seen)}")
    if record.occurrence_count > 1:
        times = f"notified {record.occurrence_count}×, last at {_clock(record.last_seen)}"
        facts.append(times)
    if group.receiver:
        facts.append(f"receiver {escape(group.receiver)}")
    return " · ".join(facts)


def _listing(alerts: Sequence[Signal], truncated: int) -> str:
    shown = [escape(_line(a)) for a in alerts[:MAX_LISTED]]
    more = len(alerts) - len(shown) + truncated
    return bullets(shown) + (f"\n…and {more} more" if more > 0 else "")


def _line(alert: Signal) -> str:
    resource = resource_of(alert.labels)
    where = f" — {resource.label()}" if resource else ""
    summary = f": {shorten(alert.summary, 120)}" if alert.summary else ""
    return f"{alert.name}{where} ({alert.status.value}){summary}"


def _clock(at: datetime) -> str:
    return at.astimezone(UTC).strftime("%Y-%m-%d %H:%MZ")
