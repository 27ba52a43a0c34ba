"""Retrying the inbox's own bookkeeping when the database is briefly unavailable.

An event is acknowledged to Slack only once it is recorded, and a finished item must be marked
done; failing either on a moment of database contention (SQLite's lock wait running out) would
make Slack deliver the event again or repeat work, so these few writes are retried with backoff
before giving up. Recording retries briefly (``RECORD_ATTEMPTS``): Slack waits 3 s for the
acknowledgement, and a failed one is delivered again later.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import TypeVar

from domain.errors import DomainError

logger = logging.getLogger(__name__)

T = TypeVar("T")
ATTEMPTS = 6
RECORD_ATTEMPTS = 3
"""0.1 s + 0.2 s of waiting at most, well inside Slack's 3 s."""
FIRST_DELAY_S = 0.1


async def retrying(
    operation: Callable[[], Awaitable[T]], *, what: str, attempts: int = ATTEMPTS
) -> T:
    """``operation()``, retried on unexpected errors (domain errors are answers, not failures)."""
    delay = FIRST_DELAY_S
    for attempt in range(1, attempts + 1):
        try:
            return await operation()
        except DomainError:
            raise
        except Exception as error:
            if attempt == attempts:
                raise
            logger.warning(
                "retrying", extra={"what": what, "attempt": attempt, "error": type(error).__name__}
            )
            await asyncio.sleep(delay)
            delay *= 2
    raise AssertionError("unreachable")
