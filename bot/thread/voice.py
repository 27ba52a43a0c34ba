"""The case thread's voice: posting, telling, whispering and sharing, with its memory of where.

`ThreadPresenter` builds on this with what a case's replies, questions and summary need.
"""

from __future__ import annotations

from contextlib import AbstractAsyncContextManager

from bot.slack.render.case.memory import runbook_comment, runbook_document
from bot.slack.render.commands import notice
from bot.slack.render.limits import fit
from bot.slack.render.message import SlackMessage
from bot.thread.charts import Charted, share_charts
from bot.thread.memory import Kept, ToolsRead
from bot.thread.refs import MessageRefs
from bot.thread.surface import ChatSurface
from bot.thread.waiting import WaitingSigns
from domain.budget import SpendLedger
from domain.case import Case
from domain.past_cases import PastCaseMatch
from domain.records import PostedKind


class ThreadVoice:
    """Says things in case threads and to people, and remembers where."""

    def __init__(
        self,
        *,
        surface: ChatSurface,
        refs: MessageRefs,
        waiting: WaitingSigns | None = None,
        spending: SpendLedger | None = None,
    ) -> None:
        self.surface = surface
        self._refs = refs
        self._waiting = waiting or WaitingSigns(surface)
        self._spending = spending

    async def tell(self, case: Case, text: str) -> str:
        """Say ``text`` in the case's thread, for everyone; return where."""
        return await self.post(case, notice(text))

    async def whisper(
        self,
        *,
        channel: str,
        user: str,
        text: str,
        thread_ts: str | None = None,
        response_url: str | None = None,
    ) -> None:
        """Say ``text`` to ``user`` alone (where they clicked or typed)."""
        await self.surface.whisper(
            channel=channel,
            user=user,
            message=notice(text),
            thread_ts=thread_ts,
            response_url=response_url,
        )

    async def permalink(self, *, channel: str, ts: str) -> str | None:
        """A link to a message, where the surface has links."""
        return await self.surface.permalink(channel=channel, ts=ts)

    async def share_runbook(
        self, case: Case, match: PastCaseMatch, *, title: str, markdown: str, chosen_by: str
    ) -> None:
        """A past case's runbook, shared in the thread as a file, saying who chose it."""
        await self.surface.share(
            channel=case.channel_id,
            thread_ts=case.thread_ts,
            documents=[runbook_document(match.label, title, markdown)],
            comment=runbook_comment(chosen_by, match),
        )

    async def share_charts(self, case: Case, answers: list[Charted]) -> int:
        """Each range query among ``answers`` as a chart in the thread; how many were shared."""
        return await share_charts(self.surface, case, answers)

    def working(
        self, case: Case, *, on: str | None = None, doing: str = "is looking at this…"
    ) -> AbstractAsyncContextManager[None]:
        """While the block runs, the thread shows the bot is working (see `WaitingSigns`).

        ``on`` is the person's message being answered (it gets the reaction, if reactions are
        how this workspace is told).
        """
        return self._waiting.working(
            channel=case.channel_id, thread_ts=case.thread_ts, message_ts=on, doing=doing
        )

    async def replace(self, case: Case, ts: str, rendered: SlackMessage) -> None:
        """Replace a message with ``rendered``; overflow follows in the thread."""
        first, *rest = fit(rendered)
        await self.surface.update(channel=case.channel_id, ts=ts, message=first)
        for part in rest:
            await self.surface.post(channel=case.channel_id, thread_ts=case.thread_ts, message=part)

    async def post(self, case: Case, rendered: SlackMessage) -> str:
        """Post into the case thread; return the first message's ts."""
        parts = fit(rendered)
        first = ""
        for part in parts:
            ts = await self.surface.post(
                channel=case.channel_id, thread_ts=case.thread_ts, message=part
            )
            first = first or ts
        return first

    async def post_kept(
        self,
        case: Case,
        rendered: SlackMessage,
        kind: PostedKind,
        key: str,
        *,
        body: Kept | None = None,
    ) -> str:
        """Post into the thread and remember where, under ``kind`` and ``key`` (with ``body``,
        what the message is drawn from, to draw it again)."""
        ts = await self.post(case, rendered)
        await self._refs.remember(case, kind, ts, key, body=body)
        return ts

    async def remember(
        self, case: Case, kind: PostedKind, ts: str, key: str, *, body: Kept | None = None
    ) -> None:
        """Remember that the message at ``ts`` is also the one of ``kind`` and ``key``."""
        await self._refs.remember(case, kind, ts, key, body=body)

    async def kept_at(self, case: Case, kind: PostedKind, key: str) -> tuple[str, Kept | None]:
        """Where the message of that kind and key is, and what it was kept with ("" if none)."""
        found = await self._refs.find(case, kind, key)
        if found is None or found.ts is None:
            return "", None
        return found.ts, await self._refs.kept(case, kind, key)

    async def keep_tools_read(self, case: Case, work_key: str, read: ToolsRead) -> None:
        """What a turn whose model failed read of its tool runs, for its Retry."""
        await self._refs.remember(case, PostedKind.TOOLS_READ, None, work_key, body=read)

    async def tools_read(self, case: Case, work_key: str) -> ToolsRead | None:
        """What the turn ``work_key`` read of its tool runs when its model failed (None: none)."""
        body = await self._refs.kept(case, PostedKind.TOOLS_READ, work_key)
        return body if isinstance(body, ToolsRead) else None

    async def ts_of(self, case: Case, kind: PostedKind, key: str) -> str | None:
        """Where the message of that kind and key was posted, if it was."""
        return await self._refs.ts(case, kind, key)
