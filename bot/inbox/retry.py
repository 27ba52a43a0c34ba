"""Retrying: the inbox's own bookkeeping, and work that Slack being briefly down cut short.

The bookkeeping first.

An event is acknowledged to Slack only once it is recorded, and a finished item must be marked
done; failing either on a moment of database contention (SQLite's lock wait running out) would
make Slack deliver the event again or repeat work, so these few writes are retried with backoff
before giving up. Recording retries briefly (``RECORDING``): Slack waits 3 s for the
acknowledgement, and a failed one is delivered again later.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from domain.errors import DomainError
from domain.retry import RetryPolicy

logger = logging.getLogger(__name__)

T = TypeVar("T")
BOOKKEEPING = RetryPolicy(attempts=6, first_delay_s=0.1, max_delay_s=1.6)
RECORDING = RetryPolicy(attempts=3, first_delay_s=0.1)
"""0.1 s + 0.2 s of waiting at most, well inside Slack's 3 s."""


async def retrying(
    operation: Callable[[], Awaitable[T]], *, what: str, policy: RetryPolicy = BOOKKEEPING
) -> T:
    """``operation()``, retried on unexpected errors (domain errors are answers, not failures)."""
    failed = 0
    while True:
        try:
            return await operation()
        except DomainError:
            raise
        except Exception as error:
            failed += 1
            if not policy.allows_another(failed):
                raise
            logger.warning(
                "retrying", extra={"what": what, "attempt": failed, "error": type(error).__name__}
            )
            await asyncio.sleep(policy.delay(failed))


WORK_RETRY = RetryPolicy(attempts=9, first_delay_s=10.0, max_delay_s=1800.0)
"""Work cut short by something passing (Slack down or busy): waits of 10 s doubling to ~21 min,
about 42 minutes of trouble in all, taken again from the queue at its ``retry_at``."""


class RetryLater(Exception):
    """The work failed on something that passes; the worker queues it again, with its progress.

    ``payload`` is the work as it should run next time (what it already did recorded, so a retry
    does not repeat it), or None to run it as it was.
    """

    def __init__(self, payload: dict[str, Any] | None = None) -> None:
        super().__init__("retry later")
        self.payload = payload
