"""A clock that only moves when told to."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

START = datetime(2026, 11, 21, 14, 30, tzinfo=UTC)


class FakeClock:
    """Fixed time, advanced explicitly (or by ``step`` on every reading)."""

    def __init__(self, now: datetime = START, *, step: timedelta | None = None) -> None:
        self._now = now
        self._step = step

    def now(self) -> datetime:
        """The current fake time."""
        current = self._now
        if self._step is not None:
            self._now += self._step
        return current

    def advance(self, **delta: float) -> datetime:
        """Move time forward (``minutes=5``)."""
        self._now += timedelta(**delta)
        return self._now
