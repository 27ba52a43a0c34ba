"""When to try again: one policy for the work queue, the model gateway and the scoring judge."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class RetryPolicy:
    """How many tries in all, and how long to wait after each failed one (doubling, capped)."""

    attempts: int = 3
    """Tries in all, the first one included."""
    first_delay_s: float = 1.0
    """The wait after the first failure; each later wait doubles."""
    max_delay_s: float = 30.0
    """No wait is longer, whatever the doubling or a server's Retry-After says."""
    jitter: bool = False
    """Full jitter: wait a random share of the delay, so many callers do not retry in step."""

    def delay(
        self,
        failed: int,
        *,
        retry_after: float | None = None,
        draw: Callable[[], float] = random.random,
    ) -> float:
        """The wait after failed try number ``failed`` (from 1); a server's Retry-After wins."""
        if retry_after is not None:
            return min(max(retry_after, 0.0), self.max_delay_s)
        ceiling = min(self.max_delay_s, self.first_delay_s * float(1 << (failed - 1)))
        return ceiling * draw() if self.jitter else ceiling

    def allows_another(self, failed: int) -> bool:
        """Whether a try may follow failed try number ``failed``."""
        return failed < self.attempts
