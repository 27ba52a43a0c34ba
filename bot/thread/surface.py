"""Where the thread's messages go: Slack through its Web API, or the terminal."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from slack_sdk.models.views import View

from bot.inbox.work import SlackFileRef
from bot.slack.render.message import SlackMessage
from domain.engine.view import DocumentView


class ChatSurface(Protocol):
    """Where messages go: Slack through its Web API, or the terminal."""

    async def post(self, *, channel: str, thread_ts: str | None, message: SlackMessage) -> str:
        """Post a message (into a thread when ``thread_ts`` is given); return its ts."""
        ...

    async def update(self, *, channel: str, ts: str, message: SlackMessage) -> None:
        """Replace a message the bot posted."""
        ...

    async def whisper(
        self,
        *,
        channel: str,
        user: str,
        message: SlackMessage,
        thread_ts: str | None = None,
        response_url: str | None = None,
    ) -> None:
        """Say something only ``user`` sees (through ``response_url`` when given)."""
        ...

    async def set_status(
        self, *, channel: str, thread_ts: str, status: str, loading: Sequence[str] = ()
    ) -> None:
        """Show that the app is working in a thread ("" clears it); the next post clears it too.

        Raises if the surface or the workspace does not allow it.
        """
        ...

    async def react(self, *, channel: str, ts: str, name: str) -> None:
        """Add the app's reaction ``name`` to a message."""
        ...

    async def unreact(self, *, channel: str, ts: str, name: str) -> None:
        """Take the app's reaction ``name`` off a message."""
        ...

    async def publish_home(self, *, user: str, view: View) -> None:
        """Show ``view`` as the person's App Home."""
        ...

    async def upload(
        self, *, channel: str, thread_ts: str, filename: str, title: str, content: str
    ) -> None:
        """Share a text file (a report, a runbook) in a thread."""
        ...

    async def upload_image(
        self, *, channel: str, thread_ts: str, filename: str, title: str, data: bytes, alt: str
    ) -> None:
        """Share an image (a chart) in a thread, with its description for screen readers."""
        ...

    async def share(
        self, *, channel: str, thread_ts: str, documents: Sequence[DocumentView], comment: str
    ) -> None:
        """Share several documents in a thread as one message that says ``comment``."""
        ...

    async def download(self, *, url: str, limit: int) -> bytes:
        """A shared file's bytes (DownloadRefusedError if it is not a file we may fetch)."""
        ...

    async def file_info(self, *, file_id: str) -> SlackFileRef | None:
        """The full description of a file a message only named; None if there is none."""
        ...

    async def permalink(self, *, channel: str, ts: str) -> str | None:
        """A link to a message, if the surface has links."""
        ...
