"""The incident's story: what the engineer says and does, when, and the log they upload."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

DAY = "2025-03-12"
"""The day the log was written on; the story happens on it unless a `StoryClock` moves it."""
LOG_NAME = "checkout-api.log"
LOG_PATH = Path(__file__).resolve().parent / "incident_files" / LOG_NAME
"""148 lines of checkout-api's Spring Boot log, 13:40 to 14:13: the pool is 50 at line 3, 10 at
line 21 after the 14:03 rollout, then HikariPool timeouts from 14:05."""

OPENING = "checkout-api 502s since 14:05, ~18% of checkouts failing"
ASK_NEXT_TEXT = "Yes, that's it. What do you need from me?"
UPLOAD_TEXT = (
    "Log from both pods attached: v2.14.0, and the v2.15.0 that replaced it. HikariPool "
    "configured lines are in there, and connection timeouts all over since the rollout."
)
ROLLED_BACK = (
    "Rolled back to v2.14.0 at 14:18 (kubectl rollout undo). The 502s are gone: no errors on "
    "POST /api/checkout for the last 5 minutes. I think we can call it resolved."
)


@dataclass(frozen=True)
class Step:
    """One thing the engineer does, at the time the story gives it."""

    name: str
    at: str
    """Story time, HH:MM:SS UTC on ``DAY``."""
    action: str

    def moment(self, day: str = DAY) -> datetime:
        """The story time on ``day`` (YYYY-MM-DD), as an aware datetime."""
        return datetime.fromisoformat(f"{day}T{self.at}+00:00")


STEPS = (
    Step("mention", "14:09:12", "mentions the bot"),
    Step("confirm_problem", "14:09:58", "clicks Yes on the problem statement"),
    Step("upload_log", "14:13:41", f"uploads {LOG_NAME}"),
    Step("rolled_back", "14:23:05", "says the rollback worked"),
    Step("confirm_resolved", "14:23:31", "clicks Resolve and write the report"),
)
"""The engineer's actions, in order."""
ASK_NEXT = "ask_next"
_EXTRA = (Step(ASK_NEXT, "14:10:25", "asks what the bot needs"),)


def step_named(name: str) -> Step:
    """The step called ``name``."""
    return next(s for s in STEPS + _EXTRA if s.name == name)


def log_on(day: str) -> bytes:
    """The application log, dated ``day``."""
    return LOG_PATH.read_text(encoding="utf-8").replace(DAY, day).encode()


BEFORE_THE_STORY = timedelta(minutes=1)
"""How long before the first step the clock starts (the bot starts up meanwhile)."""


class StoryClock:
    """The story's time: each step begins at its story time, then time runs at real speed.

    The story happens tomorrow (UTC): the bot's inbox stamps new work with the real time and
    takes it when its clock has passed that, so the bot's clock must never be behind the real
    one. Given to the bot as its clock, it makes durations and dates match the story; the demo
    maps Slack timestamps through it. It never runs backwards.
    """

    def __init__(self, *, real: float | None = None, first: Step | None = None) -> None:
        start = real if real is not None else _real_now()
        tomorrow = datetime.fromtimestamp(start, UTC).date() + timedelta(days=1)
        self.day = tomorrow.isoformat()
        opening = (first or STEPS[0]).moment(self.day) - BEFORE_THE_STORY
        self._marks: list[tuple[float, datetime]] = [(start, opening)]

    def begin(self, step: Step, *, real: float | None = None) -> None:
        """Step ``step`` starts now (``real``: seconds since the epoch)."""
        at = real if real is not None else _real_now()
        self._marks.append((at, max(step.moment(self.day), self.story_at(at))))

    def story_at(self, real: float) -> datetime:
        """The story time at real time ``real`` (seconds since the epoch)."""
        start, story = self._marks[0]
        for mark_real, mark_story in self._marks:
            if mark_real <= real:
                start, story = mark_real, mark_story
        return story + timedelta(seconds=max(0.0, real - start))

    def now(self) -> datetime:
        """The story time now."""
        return self.story_at(_real_now())


def _real_now() -> float:
    return datetime.now(UTC).timestamp()
