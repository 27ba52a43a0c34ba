"""Showing that the bot is working, the Slack way, instead of a "Looking at this…" message.

A status line under the thread ("FaultMaven is looking at this…", `assistant.threads.setStatus`)
where the workspace allows it, else a 👀 reaction on the person's message. After about fifteen
seconds it says it is still working (the status changes, or ⏳ joins the 👀). The answer then
arrives as a new message, so the phone's notification carries the answer itself; the status
clears when it is posted and the reactions are taken off.

Showing this never holds up or fails the work: whatever Slack refuses here is logged and skipped.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

from slack_sdk.errors import SlackApiError

from bot.thread.surface import ChatSurface

logger = logging.getLogger(__name__)

STILL_WORKING_AFTER_S = 15.0
REFRESH_EVERY_S = 90.0
"""Slack drops a status after two minutes without a post: say it again before then."""
LOOKING = "eyes"
STILL = "hourglass_flowing_sand"
REFUSALS = frozenset(
    {
        "missing_scope",
        "not_allowed_token_type",
        "unknown_method",
        "method_deprecated",
        "not_allowed",
        "feature_not_enabled",
        "access_denied",
        "restricted_action",
    }
)
"""Errors that mean this workspace never shows status lines: reactions from then on."""


@dataclass
class _Signs:
    """What this piece of work put up, so exactly that is taken down."""

    channel: str
    thread_ts: str
    message_ts: str | None
    status: bool = False
    reactions: list[str] = field(default_factory=list)


class WaitingSigns:
    """Puts up and takes down the signs that the bot is working on a thread."""

    def __init__(
        self,
        surface: ChatSurface,
        *,
        still_after_s: float = STILL_WORKING_AFTER_S,
        refresh_s: float = REFRESH_EVERY_S,
    ) -> None:
        self._surface = surface
        self._still_after_s = still_after_s
        self._refresh_s = refresh_s
        self._status_allowed = True

    @contextlib.asynccontextmanager
    async def working(
        self,
        *,
        channel: str,
        thread_ts: str,
        message_ts: str | None = None,
        doing: str = "is looking at this…",
    ) -> AsyncIterator[None]:
        """While the block runs, the thread shows that the bot is ``doing`` something.

        ``message_ts`` is the person's message the work answers: it gets the reaction when the
        workspace shows no status lines.
        """
        signs = _Signs(channel=channel, thread_ts=thread_ts, message_ts=message_ts)
        await self._show(signs, doing)
        timer = asyncio.create_task(self._still_working(signs))
        try:
            yield
        finally:
            timer.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await timer
            await self._take_down(signs)

    async def _still_working(self, signs: _Signs) -> None:
        await asyncio.sleep(self._still_after_s)
        if signs.status:
            await self._set(signs, "is still working on it (the model is taking a while)…")
        elif signs.message_ts is not None:
            await self._react(signs, STILL)
        while signs.status:
            await asyncio.sleep(self._refresh_s)
            await self._set(signs, "is still working on it…")

    async def _show(self, signs: _Signs, doing: str) -> None:
        if self._status_allowed and await self._set(signs, doing):
            return
        if signs.message_ts is not None:
            await self._react(signs, LOOKING)

    async def _set(self, signs: _Signs, status: str) -> bool:
        try:
            await self._surface.set_status(
                channel=signs.channel, thread_ts=signs.thread_ts, status=status
            )
        except SlackApiError as error:
            reason = error.response.get("error")
            if reason in REFUSALS:
                self._status_allowed = False
            logger.info("no status line; a reaction instead", extra={"error": reason})
            signs.status = False
            return False
        except Exception:
            logger.warning("could not show the status line", exc_info=True)
            signs.status = False
            return False
        signs.status = True
        return True

    async def _react(self, signs: _Signs, name: str) -> None:
        assert signs.message_ts is not None
        try:
            await self._surface.react(channel=signs.channel, ts=signs.message_ts, name=name)
        except Exception:
            logger.info("could not react", exc_info=True)
            return
        signs.reactions.append(name)

    async def _take_down(self, signs: _Signs) -> None:
        try:
            if signs.status:
                await self._surface.set_status(
                    channel=signs.channel, thread_ts=signs.thread_ts, status=""
                )
            for name in signs.reactions:
                assert signs.message_ts is not None
                await self._surface.unreact(channel=signs.channel, ts=signs.message_ts, name=name)
        except Exception:
            logger.info("could not take the working signs down", exc_info=True)
