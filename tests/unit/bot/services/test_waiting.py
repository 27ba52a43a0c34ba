"""Signs of work: a status line, else reactions; "still working" later; everything taken down."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

import pytest
from slack_sdk.errors import SlackApiError

from bot.thread.waiting import WaitingSigns

CHANNEL, THREAD, ASKED = "C1", "1.000001", "1.000009"


class Surface:
    """Records the calls; refuses status lines with ``refuse`` as Slack's error, if given."""

    def __init__(self, refuse: str | None = None) -> None:
        self.refuse = refuse
        self.calls: list[tuple[str, str]] = []

    async def set_status(
        self, *, channel: str, thread_ts: str, status: str, loading: Sequence[str] = ()
    ) -> None:
        if self.refuse:
            raise SlackApiError("refused", {"ok": False, "error": self.refuse})
        self.calls.append(("status", status))

    async def react(self, *, channel: str, ts: str, name: str) -> None:
        assert ts == ASKED
        self.calls.append(("react", name))

    async def unreact(self, *, channel: str, ts: str, name: str) -> None:
        self.calls.append(("unreact", name))


async def test_a_status_line_shows_then_says_still_working_then_clears() -> None:
    surface = Surface()
    signs = WaitingSigns(surface, still_after_s=0.05, refresh_s=60)  # type: ignore[arg-type]

    async with signs.working(channel=CHANNEL, thread_ts=THREAD, message_ts=ASKED):
        await asyncio.sleep(0.2)

    assert surface.calls == [
        ("status", "is looking at this…"),
        ("status", "is still working on it (the model is taking a while)…"),
        ("status", ""),
    ]


async def test_quick_work_never_says_still_working() -> None:
    surface = Surface()
    signs = WaitingSigns(surface, still_after_s=5)  # type: ignore[arg-type]

    async with signs.working(channel=CHANNEL, thread_ts=THREAD, message_ts=ASKED):
        pass

    assert surface.calls == [("status", "is looking at this…"), ("status", "")]


async def test_where_status_lines_are_refused_reactions_show_the_work_from_then_on() -> None:
    surface = Surface(refuse="missing_scope")
    signs = WaitingSigns(surface, still_after_s=0.05)  # type: ignore[arg-type]

    async with signs.working(channel=CHANNEL, thread_ts=THREAD, message_ts=ASKED):
        await asyncio.sleep(0.2)
    surface.refuse = None  # not asked again: the workspace said no once
    async with signs.working(channel=CHANNEL, thread_ts=THREAD, message_ts=ASKED):
        pass

    assert surface.calls == [
        ("react", "eyes"),
        ("react", "hourglass_flowing_sand"),
        ("unreact", "eyes"),
        ("unreact", "hourglass_flowing_sand"),
        ("react", "eyes"),
        ("unreact", "eyes"),
    ]


async def test_a_failure_to_show_signs_never_fails_the_work() -> None:
    class Broken(Surface):
        async def react(self, *, channel: str, ts: str, name: str) -> None:
            raise RuntimeError("Slack is down")

    signs = WaitingSigns(Broken(refuse="ratelimited"))  # type: ignore[arg-type]

    async with signs.working(channel=CHANNEL, thread_ts=THREAD, message_ts=ASKED):
        done = True

    assert done


async def test_an_error_in_the_work_still_takes_the_signs_down() -> None:
    surface = Surface()
    signs = WaitingSigns(surface)  # type: ignore[arg-type]

    with pytest.raises(ValueError, match="boom"):
        async with signs.working(channel=CHANNEL, thread_ts=THREAD):
            raise ValueError("boom")

    assert surface.calls[-1] == ("status", "")
