"""At most so many alert analyses at once in this process; the others wait in order.

An alert storm opens one case per group, and each would call the model at once. A case whose
analysis finds no free slot is put in line by when it opened (the oldest first) and its work is
queued again a moment later (`AnalysisService`), so waiting holds no worker: people's turns in
other threads go on. Only the head of the line may take a slot that frees.
"""

from __future__ import annotations

from datetime import datetime


class InvestigationSlots:
    """Who is analysing and who waits, in this process."""

    def __init__(self, limit: int) -> None:
        if limit < 1:
            raise ValueError("at least one analysis must be allowed")
        self.limit = limit
        self._running: set[str] = set()
        self._waiting: dict[str, datetime] = {}

    def take(self, case_id: str, *, opened_at: datetime) -> int:
        """0 when ``case_id`` may start now (it holds a slot); else its place in line (1 = next)."""
        if case_id in self._running:
            return 0
        self._waiting.setdefault(case_id, opened_at)
        line = sorted(self._waiting, key=lambda key: (self._waiting[key], key))
        place = line.index(case_id)
        free = self.limit - len(self._running)
        if place < free:
            del self._waiting[case_id]
            self._running.add(case_id)
            return 0
        return place - max(free, 0) + 1

    def release(self, case_id: str) -> None:
        """The analysis ended (or the case no longer needs one): free its slot or its place."""
        self._running.discard(case_id)
        self._waiting.pop(case_id, None)

    @property
    def running(self) -> int:
        """How many analyses hold a slot."""
        return len(self._running)
