"""Opening a case on a thread (a mention, the Investigate shortcut), then its first turn."""

from __future__ import annotations

import logging
from collections.abc import Sequence

from bot.inbox.work import OpenCaseWork, ThreadMessage
from bot.services.cases import CaseStore
from bot.services.turns import TurnService
from bot.thread.presenter import ThreadPresenter
from domain.base import shorten
from domain.case import Case
from domain.errors import DuplicateCaseError
from domain.ports import Clock

logger = logging.getLogger(__name__)

TITLE_CHARS = 120
SOURCES = {"mention": "slack:mention", "shortcut": "slack:shortcut", "console": "console"}


class CaseOpener:
    """Creates the case, then lets the turn service answer the first message (the case's
    summary comes with that answer)."""

    def __init__(
        self,
        *,
        cases: CaseStore,
        presenter: ThreadPresenter,
        turns: TurnService,
        clock: Clock,
    ) -> None:
        self._cases = cases
        self._presenter = presenter
        self._turns = turns
        self._clock = clock

    async def open(
        self,
        *,
        work: OpenCaseWork,
        work_key: str,
        more: Sequence[ThreadMessage] = (),
        tried: str = "",
    ) -> None:
        """Open the case (or find it), show its header, answer the first evidence.

        ``tried`` is the inbox item's own key (a retry's differs from ``work_key``)."""
        existing = await self._cases.by_thread(work.thread)
        if existing is not None:
            await self._existing(existing, work, work_key, more, tried)
            return
        case = await self._create(work)
        await self._presenter.open_thread(
            case, opened_by=work.opened_by, source=SOURCES[work.source]
        )
        logger.info("case opened", extra={"case_id": case.case_id, "source": work.source})
        # Its summary comes with the first answer, in one message. Should the turn fail, its
        # failure says so with Retry, and the retried turn posts them.
        await self._turns.take_turn(
            thread=work.thread,
            messages=[work.message, *more],
            work_key=work_key,
            case=case,
            tried=tried,
        )

    async def _existing(
        self,
        case: Case,
        work: OpenCaseWork,
        work_key: str,
        more: Sequence[ThreadMessage],
        tried: str,
    ) -> None:
        """A mention in a case thread is a turn; Investigate on it says it is a case already,
        except to the retry of its own first turn (which found the case it opened)."""
        if work.source != "shortcut" or tried not in ("", work_key):
            await self._turns.take_turn(
                thread=work.thread,
                messages=[work.message, *more],
                work_key=work_key,
                tried=tried,
            )
            return
        await self._presenter.whisper(
            channel=work.thread.channel_id,
            user=work.opened_by,
            thread_ts=work.thread.thread_ts,
            text=f"This thread is already case `{case.label}`.",
        )

    async def _create(self, work: OpenCaseWork) -> Case:
        now = self._clock.now()
        thread = work.thread
        case = Case(
            team_id=thread.team_id,
            channel_id=thread.channel_id,
            thread_ts=thread.thread_ts,
            user_id=work.opened_by,
            title=shorten(work.message.text, TITLE_CHARS) or "New case",
            participants=[work.opened_by],
            created_at=now,
            updated_at=now,
        )
        try:
            return await self._cases.add(case)
        except DuplicateCaseError:
            # Opened meanwhile (another replica, or a resumed item): use that case.
            return await self._cases.get_by_thread_or_fail(thread)
