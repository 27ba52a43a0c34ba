"""Alert notifications → cases: one active group, one case thread in the alert channel.

The first firing notification of a group posts the alert in the alert channel and opens a case on
that message's thread, then asks for the analysis (its own inbox item, in the thread's order).
Later notifications of the group update the alert message and say in the thread what changed
(resolved, firing again, more alerts); a group whose case is finished starts a new case when it
fires again. Every step can run twice after a restart or a Slack outage without doubling anything.

With a debounce (``FM_ALERT_DEBOUNCE_S``) the analysis waits that long: a group resolved within
it is a flap, and its case is noted and closed as self-resolved before any model call.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime, timedelta

from bot.inbox.retry import RetryLater
from bot.inbox.work import AlertWork, RcaWork, ThreadRef
from bot.services.cases import CaseStore
from bot.services.intake import Intake
from bot.services.ports import Workspace
from bot.slack.errors import is_transient
from bot.thread.alerts import AlertThread, Told
from bot.thread.presenter import ThreadPresenter
from domain.base import shorten
from domain.case import ALERT_OPENER, AlertFacts, Case
from domain.errors import DuplicateCaseError
from domain.ports import AuditRepository, Clock, MessageRepository
from domain.records import AuditEntry, ConversationMessage, MessageRole
from domain.workflows.alert_groups import AlertGroupRecord, GroupTouch
from domain.workflows.flapping import close_self_resolved, is_flap
from domain.workflows.ports import AlertGroupRepository
from domain.workflows.signals import SignalGroup, SignalStatus

logger = logging.getLogger(__name__)

ALERT_AUTHOR = ALERT_OPENER
TITLE_CHARS = 120


@dataclass(frozen=True)
class AlertPorts:
    """What the alert service works with."""

    groups: AlertGroupRepository
    cases: CaseStore
    presenter: ThreadPresenter
    shown: AlertThread
    """Draws the alert message and the notes of what changed."""
    messages: MessageRepository
    audit: AuditRepository
    intake: Intake
    workspace: Workspace
    clock: Clock


class AlertService:
    """Handles one notification at a time per group (the inbox orders them by the group)."""

    def __init__(self, *, ports: AlertPorts, channel: str, debounce_s: float = 0.0) -> None:
        self._p = ports
        self._channel = channel
        self._debounce_s = debounce_s

    async def handle(self, *, work: AlertWork, work_key: str) -> None:
        """Open or update the group's case; retried later if Slack is briefly unavailable."""
        progress = _Progress()
        if work.counted:
            progress.counted = (work.previous_status, work.new_fingerprints)
        try:
            await self._handle(work, progress)
        except Exception as error:
            if not is_transient(error):
                raise
            counted = progress.counted
            done = {
                "counted": counted is not None,
                "previous_status": counted[0] if counted else None,
                "new_fingerprints": counted[1] if counted else [],
            }
            # What this try already did rides along, so the next one does not count it again.
            raise RetryLater(work.model_copy(update=done).model_dump(mode="json")) from error

    async def _handle(self, work: AlertWork, progress: _Progress) -> None:
        progress.team_id = await self._p.workspace.team_id()
        touch = await self._record(work, progress)
        if touch is None:
            return
        record = touch.record
        if record.case_id is not None:
            case = await self._p.cases.get(record.case_id)
            if case.is_terminal:
                await self._finished(case, record, work, progress)
                return
        record = await self._ensure_message(record)
        if record.case_id is None:
            await self._open_case(record)
        else:
            await self._update(record, touch, work)

    async def _record(self, work: AlertWork, progress: _Progress) -> GroupTouch | None:
        """Count the notification against its group once (a retry finds it counted)."""
        groups, group, team_id = self._p.groups, work.group, progress.team_id
        if progress.counted is not None:
            record = await groups.find_active(team_id, group.identity)
            if record is not None:
                previous, fresh = progress.counted
                return GroupTouch(record, False, previous, fresh)
        resolved = group.status is SignalStatus.RESOLVED
        if resolved and await groups.find_active(team_id, group.identity) is None:
            logger.info("resolved notification of an unknown alert group ignored")
            return None
        touch = await groups.touch(
            team_id=team_id, channel_id=self._channel, group=group, now=work.received_at
        )
        progress.counted = (touch.previous_status, touch.new_fingerprints)
        return touch

    async def _finished(
        self, case: Case, record: AlertGroupRecord, work: AlertWork, progress: _Progress
    ) -> None:
        """The group's case is over: say so in its thread, or open a new case if it fires."""
        if work.group.status is SignalStatus.RESOLVED:
            told = await self._p.shown.resolved(case, work.group, at=work.received_at)
            await self._keep(case, told)
            await self._p.groups.retire(record.group_id, now=self._p.clock.now())
            return
        await self._p.groups.retire(record.group_id, now=self._p.clock.now())
        touch = await self._p.groups.touch(
            team_id=progress.team_id,
            channel_id=self._channel,
            group=work.group,
            now=work.received_at,
        )
        await self._open_case(await self._ensure_message(touch.record))

    async def _ensure_message(self, record: AlertGroupRecord) -> AlertGroupRecord:
        """Post the alert in the alert channel, once per group."""
        if record.alert_ts is not None:
            return record
        ts = await self._p.shown.post_alert(record)
        await self._p.groups.set_thread(record.group_id, alert_ts=ts)
        return record.model_copy(update={"alert_ts": ts})

    async def _open_case(self, record: AlertGroupRecord) -> None:
        """A case on the alert's thread, its header, its first message, then the analysis."""
        assert record.alert_ts is not None
        thread = ThreadRef(
            team_id=record.team_id, channel_id=record.channel_id, thread_ts=record.alert_ts
        )
        self._p.cases.remember_thread(thread)
        case = await self._create(thread, record)
        await self._p.groups.set_case(record.group_id, case_id=case.case_id)
        await self._p.presenter.show_header(case)
        await self._p.messages.add(
            ConversationMessage(
                case_id=case.case_id,
                ts=record.alert_ts,
                author=ALERT_AUTHOR,
                role=MessageRole.USER,
                text=self._p.shown.in_words(record.latest),
                created_at=record.first_seen,
            )
        )
        await self._audit(case, record)
        logger.info("alert opened a case", extra={"case_id": case.case_id})
        debounce = timedelta(seconds=self._debounce_s)
        await self._p.intake.record(
            RcaWork(thread=thread, case_id=case.case_id),
            dedup_key=f"rca:{case.case_id}",
            team_id=case.team_id,
            case_key=thread.key,
            available_at=self._p.clock.now() + debounce if debounce else None,
        )

    async def _create(self, thread: ThreadRef, record: AlertGroupRecord) -> Case:
        now = self._p.clock.now()
        case = Case(
            team_id=thread.team_id,
            channel_id=thread.channel_id,
            thread_ts=thread.thread_ts,
            user_id=ALERT_AUTHOR,
            title=shorten(record.latest.title(), TITLE_CHARS),
            alert=alert_facts(record),
            created_at=now,
            updated_at=now,
        )
        try:
            return await self._p.cases.add(case)
        except DuplicateCaseError:
            # A retry after the case was stored: use it.
            return await self._p.cases.get_by_thread_or_fail(thread)

    async def _update(self, record: AlertGroupRecord, touch: GroupTouch, work: AlertWork) -> None:
        """A repeated notification: refresh the alert message, say what changed in the thread."""
        assert record.alert_ts is not None
        assert record.case_id is not None
        try:
            await self._p.shown.update_alert(record)
        except Exception as error:
            if is_transient(error):
                raise
            # Someone deleted the alert message: the thread still hears what changed.
            logger.warning("the alert message could not be updated", extra={"error": str(error)})
        case = await self._p.cases.get(record.case_id)
        after = (work.received_at - record.first_seen).total_seconds()
        flap = is_flap(
            first_seen=record.first_seen, resolved_at=work.received_at, debounce_s=self._debounce_s
        )
        shown, group = self._p.shown, work.group
        if touch.resolved_now and flap:
            await self._self_resolved(case, record, work, after)
        elif touch.resolved_now:
            await self._keep(case, await shown.resolved(case, group, at=work.received_at))
            await self._firing(case, stopped_at=work.received_at)
        elif touch.fired_again:
            await self._keep(case, await shown.firing_again(case, group))
            await self._firing(case, stopped_at=None)
        elif touch.new_fingerprints:
            await self._keep(case, await shown.joined(case, group, touch.new_fingerprints))

    async def _firing(self, case: Case, *, stopped_at: datetime | None) -> None:
        """Whether the alert still fires, as the case's summary says it."""
        if case.alert is None or case.is_terminal:
            return

        def stopped(current: Case) -> None:
            if current.alert is not None:
                current.alert.resolved_at = stopped_at

        await self._p.presenter.show_header(await self._p.cases.change(case, stopped))

    async def _self_resolved(
        self, case: Case, record: AlertGroupRecord, work: AlertWork, after: float
    ) -> None:
        """A flap: closed as self-resolved, said in the thread, no analysis."""
        now = self._p.clock.now()
        case = await self._p.cases.change(
            case, lambda current: _close_flap(current, now=now, after=after)
        )
        await self._keep(case, await self._p.shown.self_resolved(case, work.group, after_s=after))
        await self._p.presenter.show_header(case)
        await self._p.audit.record(
            AuditEntry(
                team_id=case.team_id,
                case_id=case.case_id,
                actor=ALERT_AUTHOR,
                action="case.self_resolved",
                detail={"group_id": record.group_id, "after_s": round(after, 1)},
                source="alert",
                at=now,
            )
        )
        logger.info("a flapping alert closed its case", extra={"case_id": case.case_id})

    async def _keep(self, case: Case, told: Told) -> None:
        """What was said in the case thread: the next turn's model sees it as part of the
        conversation."""
        await self._p.messages.add(
            ConversationMessage(
                case_id=case.case_id,
                ts=told.ts,
                author=ALERT_AUTHOR,
                role=MessageRole.USER,
                text=told.text,
                created_at=self._p.clock.now(),
            )
        )

    async def _audit(self, case: Case, record: AlertGroupRecord) -> None:
        await self._p.audit.record(
            AuditEntry(
                team_id=case.team_id,
                case_id=case.case_id,
                actor=ALERT_AUTHOR,
                action="case.opened_by_alert",
                detail={
                    "group_id": record.group_id,
                    "group_key": record.group_key,
                    "fingerprints": record.fingerprints,
                    "alert_ts": record.alert_ts,
                },
                source="alert",
                at=self._p.clock.now(),
            )
        )


def alert_facts(record: AlertGroupRecord) -> AlertFacts:
    """What the alert says of itself: since when it fires (its own start, else when it first
    arrived) and its severity label."""
    group: SignalGroup = record.latest
    primary = group.primary
    severity = primary.labels.get("severity") or group.common_labels.get("severity")
    return AlertFacts(firing_since=primary.starts_at or record.first_seen, severity=severity)


def _close_flap(case: Case, *, now: datetime, after: float) -> None:
    """Close the case unless someone finished it meanwhile."""
    if not case.is_terminal:
        close_self_resolved(case, now=now, after_s=after)


@dataclass
class _Progress:
    """How far a notification got, so a retry neither loses nor repeats a step."""

    counted: tuple[SignalStatus | None, list[str]] | None = None
    """Set once counted: the group's earlier status and the alerts this notification added."""
    team_id: str = ""
