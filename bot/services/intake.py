"""What listeners call: record work in the durable inbox (deduplicated), then wake the worker.

What people wrote (thread messages, the message an Investigate shortcut was used on, runbooks from
the `kb add` form) is redacted here, before it is recorded: from then on it is stored, embedded and
sent to the model without the secrets someone pasted with it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import datetime

from bot.inbox.retry import RECORDING, retrying
from bot.inbox.work import (
    AlertWork,
    ClickWork,
    CommandWork,
    HomeWork,
    KbAddWork,
    MessageWork,
    OpenCaseWork,
    ScoreRequestWork,
    ScoreRunWork,
    ThreadMessage,
    ThreadRef,
    Work,
    to_item,
)
from bot.services.cases import CaseStore
from domain.queue import InboxItem, InboxRepository
from domain.redaction import redact_text

logger = logging.getLogger(__name__)

Wake = Callable[[InboxItem], None]
ALERT_CASE_KEY = "alert:"


class Intake:
    """Listeners parse and authorise; this records. Nothing slow happens here."""

    def __init__(self, *, inbox: InboxRepository, cases: CaseStore) -> None:
        self._inbox = inbox
        self._cases = cases
        self._wake: list[Wake] = []

    def subscribe(self, wake: Wake) -> None:
        """Be told of every newly recorded item (the worker, so it starts within a second)."""
        self._wake.append(wake)

    async def message(
        self,
        *,
        thread: ThreadRef,
        message: ThreadMessage,
        reply: bool,
        mentions_bot: bool,
        dedup_key: str,
    ) -> bool:
        """A reply in a case thread is a turn; a mention elsewhere opens a case; else nothing.

        ``reply``: written inside a thread (not its first message); ``dedup_key``: the same
        message delivered twice is recorded once.
        """
        if reply and await self._cases.is_case_thread(thread):
            work: Work = MessageWork(thread=thread, message=_cleaned(message))
        elif mentions_bot:
            self._cases.remember_thread(thread)
            work = OpenCaseWork(
                thread=thread, opened_by=message.author, source="mention", message=_cleaned(message)
            )
        else:
            return False
        return await self.record(
            work, dedup_key=dedup_key, team_id=thread.team_id, case_key=thread.key
        )

    async def open_case(self, work: OpenCaseWork, *, dedup_key: str) -> bool:
        """The Investigate shortcut (or the console) opens a case on a thread."""
        self._cases.remember_thread(work.thread)
        work = work.model_copy(update={"message": _cleaned(work.message)})
        return await self.record(
            work, dedup_key=dedup_key, team_id=work.thread.team_id, case_key=work.thread.key
        )

    async def click(self, work: ClickWork, *, dedup_key: str) -> bool:
        """A button click, in its case's order when it was clicked in a thread."""
        case_key = None
        if work.thread_ts:
            case_key = f"{work.team_id}:{work.channel_id}:{work.thread_ts}"
        return await self.record(work, dedup_key=dedup_key, team_id=work.team_id, case_key=case_key)

    async def command(self, work: CommandWork, *, dedup_key: str) -> bool:
        """A `/fm` command."""
        return await self.record(work, dedup_key=dedup_key, team_id=work.team_id, case_key=None)

    async def kb_add(self, work: KbAddWork, *, dedup_key: str) -> bool:
        """A submitted personal runbook."""
        work = work.model_copy(
            update={"title": redact_text(work.title), "body": redact_text(work.body)}
        )
        return await self.record(work, dedup_key=dedup_key, team_id=work.team_id, case_key=None)

    async def home(self, work: HomeWork, *, dedup_key: str) -> bool:
        """Someone opened the App Home."""
        return await self.record(work, dedup_key=dedup_key, team_id=work.team_id, case_key=None)

    async def score_request(self, work: ScoreRequestWork, *, dedup_key: str) -> bool:
        """The Score investigation shortcut."""
        return await self.record(work, dedup_key=dedup_key, team_id=work.team_id, case_key=None)

    async def score_run(self, work: ScoreRunWork) -> bool:
        """The judge's work for a new scoring (once per scoring)."""
        return await self.record(
            work, dedup_key=f"score:{work.score_id}", team_id=work.team_id, case_key=None
        )

    async def alert(self, work: AlertWork, *, dedup_key: str) -> bool:
        """A monitoring notification; one group's notifications are handled in order."""
        # The workspace is not known yet (alerts come from outside Slack): the worker finds it.
        case_key = f"{ALERT_CASE_KEY}{work.group.identity}"
        return await self.record(work, dedup_key=dedup_key, team_id="", case_key=case_key)

    async def record(
        self,
        work: Work,
        *,
        dedup_key: str,
        team_id: str,
        case_key: str | None,
        available_at: datetime | None = None,
    ) -> bool:
        """Record once (False for a duplicate delivery) and wake the worker."""
        item = to_item(
            work,
            dedup_key=dedup_key,
            team_id=team_id,
            case_key=case_key,
            available_at=available_at,
        )
        recording = retrying(lambda: self._inbox.enqueue(item), what="record", policy=RECORDING)
        if not await recording:
            logger.info("duplicate delivery ignored", extra={"dedup_key": dedup_key})
            return False
        for wake in self._wake:
            wake(item)
        return True


def _cleaned(message: ThreadMessage) -> ThreadMessage:
    """The message without the secrets pasted into it."""
    return message.model_copy(update={"text": redact_text(message.text)})
