"""Work cut short by Slack being briefly unavailable is recorded again, to run a little later.

The worker gives up on an item that fails; for alerts and their analysis that would lose the alert,
so their services catch failures that retrying can fix (Slack 5xx and rate limits, connection
errors, timeouts) and record the same work again with a delay, a few times with growing gaps.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from datetime import timedelta
from typing import TypeVar

import aiohttp
from slack_sdk.errors import SlackApiError

from bot.inbox.work import AlertWork, RcaWork
from bot.services.intake import Intake
from domain.ports import Clock

logger = logging.getLogger(__name__)

DELAYS_S = (5.0, 30.0, 120.0, 600.0, 1800.0)
"""Waits before each retry: about 45 minutes of Slack trouble in all."""
TRANSIENT_SLACK_ERRORS = frozenset(
    {"ratelimited", "internal_error", "service_unavailable", "fatal_error", "request_timeout"}
)
RETRY_MARK = "#retry"
RetriedT = TypeVar("RetriedT", AlertWork, RcaWork)


def is_transient(error: BaseException) -> bool:
    """Whether trying again later can succeed (Slack down or busy, network trouble)."""
    if isinstance(error, SlackApiError):
        status = getattr(error.response, "status_code", 200)
        return (
            status >= 500 or status == 429 or error.response.get("error") in TRANSIENT_SLACK_ERRORS
        )
    return isinstance(error, aiohttp.ClientError | TimeoutError | ConnectionError)


class Deferral:
    """Records a retry of alert work in the durable inbox, to be taken after a delay."""

    def __init__(self, *, intake: Intake, clock: Clock, delays_s: Sequence[float] = DELAYS_S):
        self._intake = intake
        self._clock = clock
        self._delays = tuple(delays_s)

    async def retry_later(
        self,
        work: RetriedT,
        *,
        work_key: str,
        team_id: str,
        case_key: str,
        error: BaseException,
        **changes: object,
    ) -> bool:
        """Record ``work`` again (with ``changes``); False when its retries are used up."""
        attempt = work.attempt
        if attempt >= len(self._delays) or not is_transient(error):
            return False
        retry = work.model_copy(update={**changes, "attempt": attempt + 1})
        base = work_key.split(RETRY_MARK, 1)[0]
        at = self._clock.now() + timedelta(seconds=self._delays[attempt])
        await self._intake.record(
            retry,
            dedup_key=f"{base}{RETRY_MARK}{attempt + 1}",
            team_id=team_id,
            case_key=case_key,
            available_at=at,
        )
        logger.warning(
            "Slack unavailable; the work will be retried",
            extra={"work": base, "attempt": attempt + 1, "error": type(error).__name__},
        )
        return True
