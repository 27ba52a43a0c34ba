"""Retrying the inbox's own bookkeeping when the database is briefly unavailable.

An event is acknowledged to Slack before it is recorded, and a finished item must be marked
done; losing either to a moment of database contention (SQLite's lock wait running out) would
lose or repeat work, so these few writes are retried with backoff before giving up.
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
FIRST_DELAY_S = 0.1


async def retrying(operation: Callable[[], Awaitable[T]], *, what: str) -> T:
    """``operation()``, retried on unexpected errors (domain errors are answers, not failures)."""
    delay = FIRST_DELAY_S
    for attempt in range(1, ATTEMPTS + 1):
        try:
            return await operation()
        except DomainError:
            raise
        except Exception as error:
            if attempt == ATTEMPTS:
                raise
            logger.warning(
                "retrying", extra={"what": what, "attempt": attempt, "error": type(error).__name__}
            )
            await asyncio.sleep(delay)
            delay *= 2
    raise AssertionError("unreachable")
