"""Retry: work that failed, put back in the inbox as new work when someone clicks **Retry**.

The failure message's button names the failed inbox item. Its work is recorded again under a key
made from the failed one's (`again_key`), so the inbox's deduplication turns a second click, on
this replica or another, into a note instead of a second run. The services see the first try's
key (`first_key`), so a retry finds what the first try left behind, as a resumed item does.

A turn whose model call failed (a timeout, a rate limit, a refusal, a reply it could not use)
finished as work, and its answer says so with the same button: that item runs again too, and
the turn asks the model again. A turn a click started (Yes on the problem, Can't get this, a way
out when stuck, a tool run's results) is part of the click's work, which cannot run again (its
question is decided): its Retry records what the click said, kept with the case, as a message of
the thread under the turn's key, and the turn answers it again (with the tool runs it read).
"""

from __future__ import annotations

import logging

from bot.inbox.work import ClickWork, MessageWork, ThreadMessage, ThreadRef, WorkKind, load_work
from bot.services.cases import CaseStore
from bot.services.intake import Intake
from bot.slack.ids import InvalidValueError, RetryValue, load_value
from bot.thread.replies import Replies
from domain.ports import MessageRepository
from domain.queue import InboxItem, InboxRepository, InboxStatus

logger = logging.getLogger(__name__)

RETRYABLE = frozenset({WorkKind.OPEN_CASE, WorkKind.MESSAGE, WorkKind.RCA})
"""Work told in a case thread, which runs the same way again (a click's question may be gone)."""
PREFIX = "retry"
GONE = "That work is too old to retry (finished work is kept for a week); nothing changed."
NOT_FAILED = {
    InboxStatus.DONE: "That work has since succeeded, so there is nothing to retry.",
    InboxStatus.PENDING: "That work is already running again; nothing more to do.",
    InboxStatus.PROCESSING: "That work is already running again; nothing more to do.",
}
RETRIED = {
    InboxStatus.DONE: "That was already retried, and it succeeded; nothing more to do.",
    InboxStatus.PENDING: "That is already being retried; nothing more to do.",
    InboxStatus.PROCESSING: "That is already being retried; nothing more to do.",
    InboxStatus.FAILED: "That was already retried and failed again; the newest message about it "
    "in the thread has its own Retry.",
}

RETRIED_TURN = {
    **RETRIED,
    InboxStatus.DONE: "That was already retried; its answer is in the thread.",
}
"""A turn whose model failed finishes as work either way: what the retry got is in the thread."""


def again_key(dedup_key: str) -> str:
    """The dedup key of the next try of the work recorded under ``dedup_key``."""
    first, tries = _split(dedup_key)
    return f"{PREFIX}:{tries + 1}:{first}"


def first_key(dedup_key: str) -> str:
    """The dedup key the work had on its first try (the key itself if it is a first try)."""
    return _split(dedup_key)[0]


def _split(dedup_key: str) -> tuple[str, int]:
    prefix, _, rest = dedup_key.partition(":")
    tries, _, first = rest.partition(":")
    if prefix == PREFIX and tries.isdigit() and first:
        return first, int(tries)
    return dedup_key, 0


class RetryService:
    """Records failed thread work again, once per failure, at a person's request."""

    def __init__(
        self,
        *,
        inbox: InboxRepository,
        intake: Intake,
        replies: Replies,
        cases: CaseStore,
        messages: MessageRepository,
    ) -> None:
        self._inbox = inbox
        self._intake = intake
        self._replies = replies
        self._cases = cases
        self._messages = messages

    async def retry(self, *, work: ClickWork) -> None:
        """Run the failed work again and say so on its message; or say privately why not."""
        value = load_value(RetryValue, work.value)
        if value.said is not None:
            await self._retry_clicked(work, value, value.said)
            return
        failed = await self._inbox.find(value.work_key)
        if failed is None:
            await self._tell(work, GONE)
            return
        _check_place(failed, work)
        # A turn whose model failed finished its work: its answer said so, with this button.
        faulted = bool(value.turn) and failed.status is InboxStatus.DONE
        if failed.status is not InboxStatus.FAILED and not faulted:
            await self._tell(work, NOT_FAILED[failed.status])
            return
        again = again_key(failed.dedup_key)
        recorded = await self._intake.record(
            load_work(failed), dedup_key=again, team_id=failed.team_id, case_key=failed.case_key
        )
        if not recorded:
            earlier = await self._inbox.find(again)
            said = RETRIED_TURN if value.turn else RETRIED
            await self._tell(work, GONE if earlier is None else said[earlier.status])
            return
        logger.info("failed work retried", extra={"work": failed.dedup_key, "again": again})
        await self._retrying(work, value)

    async def _retry_clicked(self, work: ClickWork, value: RetryValue, said: str) -> None:
        """A click's turn: what the click said, answered again as a message of this thread."""
        if work.thread_ts is None:
            raise InvalidValueError("not a failure told in a thread")
        thread = ThreadRef(
            team_id=work.team_id, channel_id=work.channel_id, thread_ts=work.thread_ts
        )
        case = await self._cases.by_thread(thread)
        kept = [] if case is None else await self._messages.list_for_case(case.case_id)
        found = [m for m in kept if m.ts == said]
        if not found:
            raise InvalidValueError("not a failure of this thread")
        message = ThreadMessage(ts=found[0].ts, author=found[0].author, text=found[0].text)
        again = again_key(value.work_key)
        recorded = await self._intake.record(
            MessageWork(thread=thread, message=message),
            dedup_key=again,
            team_id=thread.team_id,
            case_key=thread.key,
        )
        if not recorded:
            earlier = await self._inbox.find(again)
            await self._tell(work, GONE if earlier is None else RETRIED_TURN[earlier.status])
            return
        logger.info("clicked turn retried", extra={"work": value.work_key, "again": again})
        await self._retrying(work, value)

    async def _retrying(self, work: ClickWork, value: RetryValue) -> None:
        """The failure message, redrawn to say it is being retried (its button gone)."""
        if work.message_ts:
            await self._replies.retrying(
                channel=work.channel_id,
                ts=work.message_ts,
                by=work.user_id,
                reference=value.reference,
            )

    async def _tell(self, work: ClickWork, text: str) -> None:
        await self._replies.note(
            text, channel=work.channel_id, user=work.user_id, thread_ts=work.thread_ts
        )


def _check_place(failed: InboxItem, work: ClickWork) -> None:
    """The button is a failure message's of this very thread (a value can be forged)."""
    if failed.kind not in RETRYABLE or work.thread_ts is None:
        raise InvalidValueError("not a failure told in a thread")
    thread = ThreadRef(team_id=work.team_id, channel_id=work.channel_id, thread_ts=work.thread_ts)
    if failed.case_key != thread.key:
        raise InvalidValueError("not a failure of this thread")
