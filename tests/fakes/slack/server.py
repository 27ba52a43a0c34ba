"""`FakeSlack`: a local Slack Web API over real HTTP (aiohttp), with file hosting and Socket Mode.

async with FakeSlack(bot_token="xoxb-test") as slack:
    client = AsyncWebClient(base_url=slack.api_url, token="xoxb-test")
"""

from __future__ import annotations

import asyncio
import copy
from types import TracebackType
from typing import Any

from tests.fakes.slack.endpoints import Call, Fault, InvalidPayload, SlackServerCore
from tests.fakes.slack.samples import next_ts
from tests.fakes.slack.state import JsonDict

__all__ = ["Call", "FakeSlack", "InvalidPayload"]

_DEFAULT_ERRORS = {429: "ratelimited", 500: "internal_error", 503: "service_unavailable"}


class FakeSlack(SlackServerCore):
    """A fake Slack workspace on 127.0.0.1 (ephemeral port) for one bot token and one app token."""

    async def __aenter__(self) -> FakeSlack:
        await self.start()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()

    # ------------------------------------------------------------------ test-facing helpers
    def calls_to(self, method: str, *, ok: bool | None = None) -> list[JsonDict]:
        """Parameters of every answered call to `method` (only successful/failed ones with `ok`)."""
        return [
            call.params
            for call, reply in zip(self.calls, self.replies, strict=True)
            if call.method == method and (ok is None or reply.body.get("ok", True) is ok)
        ]

    async def wait_for(
        self,
        method: str,
        count: int = 1,
        timeout: float = 5,  # noqa: ASYNC109 - a deadline is what this helper is for
        *,
        ok: bool | None = None,
    ) -> list[JsonDict]:
        """Wait until `method` has been answered `count` times (optionally only ok/failed ones).

        Returns the parameters of all such calls so far, in order.
        """
        async with self._changed:
            try:
                await asyncio.wait_for(
                    self._changed.wait_for(lambda: len(self.calls_to(method, ok=ok)) >= count),
                    timeout,
                )
            except TimeoutError:
                seen = [c.method for c in self.calls]
                raise AssertionError(
                    f"expected {count} x {method} within {timeout}s; calls: {seen}"
                ) from None
        return self.calls_to(method, ok=ok)

    def messages(self, channel: str, thread_ts: str | None = None) -> list[JsonDict]:
        """Current messages (after updates and deletes): a thread, or the channel's top level."""
        ws = self.workspace
        found = ws.thread(channel, thread_ts) if thread_ts else ws.top_level(channel)
        return copy.deepcopy(found)

    def message(self, channel: str, ts: str) -> JsonDict | None:
        found = self.workspace.find(channel, ts)
        return copy.deepcopy(found) if found else None

    def ephemerals(self, channel: str | None = None, user: str | None = None) -> list[JsonDict]:
        return [
            copy.deepcopy(e)
            for e in self.workspace.ephemerals
            if channel in (None, e["channel"]) and user in (None, e["user"])
        ]

    def home(self, user: str) -> JsonDict | None:
        """The App Home view last published for `user`."""
        return copy.deepcopy(self.workspace.home_views.get(user))

    def view(self, view_id: str) -> JsonDict | None:
        return copy.deepcopy(self.workspace.views.get(view_id))

    def add_message(
        self,
        channel: str,
        text: str = "",
        *,
        user: str = "W222",
        ts: str | None = None,
        **fields: Any,
    ) -> JsonDict:
        """Seed a message as if a person posted it (fields: thread_ts, blocks, files, bot_id, …)."""
        message = {
            "type": "message",
            "user": user,
            "text": text,
            "ts": ts or next_ts(),
            "team": self.workspace.team_id,
        }
        message.update(fields)
        return copy.deepcopy(self.workspace.store(channel, message))

    def add_file(
        self,
        name: str,
        content: bytes | str,
        *,
        user: str = "W222",
        title: str | None = None,
        mimetype: str | None = None,
        filetype: str | None = None,
        size: int | None = None,
    ) -> JsonDict:
        """Host a file and return its Slack `file` object (`size` may differ from the bytes)."""
        data = content.encode() if isinstance(content, str) else content
        stored = self.workspace.new_file(
            name,
            size=len(data) if size is None else size,
            user=user,
            title=title,
            mimetype=mimetype,
            filetype=filetype,
        )
        stored.content = data
        return copy.deepcopy(stored.obj)

    def file_content(self, file_id: str) -> bytes | None:
        stored = self.workspace.files.get(file_id)
        return None if stored is None else stored.content

    def fail_next(
        self,
        method: str,
        *,
        status: int | None = None,
        error: str | None = None,
        retry_after: int | None = None,
        times: int = 1,
    ) -> None:
        """Answer the next `times` calls to `method` with an error (429 carries `Retry-After`)."""
        if status is None and error is None:
            raise ValueError("fail_next needs a status or an error")
        status = status or 200
        if status == 429 and retry_after is None:
            retry_after = 1
        fault = Fault(status, error or _DEFAULT_ERRORS.get(status, "fatal_error"), retry_after)
        self._faults[method].extend([fault] * times)

    def set_latency(self, seconds: float, method: str | None = None) -> None:
        if method is None:
            self.latency = seconds
        else:
            self.method_latency[method] = seconds
