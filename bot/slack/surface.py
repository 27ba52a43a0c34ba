"""The chat surface over Slack's Web API: every payload is checked against Slack's limits first."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from urllib.parse import urlsplit

import aiohttp
from slack_sdk.errors import SlackApiError
from slack_sdk.models.views import View
from slack_sdk.web.async_client import AsyncWebClient
from slack_sdk.webhook.async_client import AsyncWebhookClient

from bot.inbox.work import SlackFileRef
from bot.slack.errors import DownloadRefusedError
from bot.slack.files import file_ref
from bot.slack.render.limits import VIEW_MAX_BLOCKS, RenderError, check_blocks, ensure_valid
from bot.slack.render.message import SlackMessage
from domain.engine.view import DocumentView

logger = logging.getLogger(__name__)

DOWNLOAD_TIMEOUT_S = 60
_CHUNK = 64 * 1024


def allowed_file_hosts(api_url: str) -> frozenset[str]:
    """Hosts that serve this workspace's files: the API host and its `files.` sibling."""
    netloc = urlsplit(api_url).netloc.lower()
    host = netloc.removeprefix("api.")
    return frozenset({netloc, host, f"files.{host}"})


class SlackSurface:
    """ChatSurface for Slack."""

    def __init__(self, client: AsyncWebClient, *, bot_token: str, api_url: str) -> None:
        self._client = client
        self._token = bot_token
        self._file_hosts = allowed_file_hosts(api_url)
        self._links: dict[tuple[str, str], str] = {}

    async def post(self, *, channel: str, thread_ts: str | None, message: SlackMessage) -> str:
        """chat.postMessage."""
        ensure_valid(message)
        response = await self._client.chat_postMessage(
            channel=channel, thread_ts=thread_ts, **message.payload()
        )
        return str(response["ts"])

    async def update(self, *, channel: str, ts: str, message: SlackMessage) -> None:
        """chat.update."""
        ensure_valid(message)
        await self._client.chat_update(channel=channel, ts=ts, **message.payload())

    async def whisper(
        self,
        *,
        channel: str,
        user: str,
        message: SlackMessage,
        thread_ts: str | None = None,
        response_url: str | None = None,
    ) -> None:
        """An ephemeral message: through the response URL when there is one, else postEphemeral."""
        ensure_valid(message)
        if response_url:
            webhook = AsyncWebhookClient(response_url)
            response = await webhook.send(
                text=message.text,
                blocks=message.block_dicts(),
                response_type="ephemeral",
                replace_original=False,
            )
            if response.status_code == 200:
                return
            logger.warning("response_url refused", extra={"status": response.status_code})
        await self._client.chat_postEphemeral(
            channel=channel, user=user, thread_ts=thread_ts, **message.payload()
        )

    async def set_status(
        self, *, channel: str, thread_ts: str, status: str, loading: Sequence[str] = ()
    ) -> None:
        """assistant.threads.setStatus: the "<app> is …" line under a thread ("" clears it).

        Slack clears it by itself when the app next posts in the thread, or after two minutes.
        """
        await self._client.assistant_threads_setStatus(
            channel_id=channel,
            thread_ts=thread_ts,
            status=status,
            loading_messages=list(loading) or None,
        )

    async def react(self, *, channel: str, ts: str, name: str) -> None:
        """reactions.add (already there is fine)."""
        try:
            await self._client.reactions_add(channel=channel, timestamp=ts, name=name)
        except SlackApiError as error:
            if error.response.get("error") != "already_reacted":
                raise

    async def unreact(self, *, channel: str, ts: str, name: str) -> None:
        """reactions.remove (already gone is fine)."""
        try:
            await self._client.reactions_remove(channel=channel, timestamp=ts, name=name)
        except SlackApiError as error:
            if error.response.get("error") != "no_reaction":
                raise

    async def publish_home(self, *, user: str, view: View) -> None:
        """views.publish."""
        problems = list(check_blocks(view.to_dict().get("blocks", []), max_blocks=VIEW_MAX_BLOCKS))
        if problems:
            raise RenderError("; ".join(problems))
        await self._client.views_publish(user_id=user, view=view)

    async def upload(
        self, *, channel: str, thread_ts: str, filename: str, title: str, content: str
    ) -> None:
        """Share a text file in the thread (files:write)."""
        await self._client.files_upload_v2(
            channel=channel, thread_ts=thread_ts, filename=filename, title=title, content=content
        )

    async def upload_image(
        self, *, channel: str, thread_ts: str, filename: str, title: str, data: bytes, alt: str
    ) -> None:
        """Share an image in the thread (files:write), described by ``alt`` for screen readers."""
        await self._client.files_upload_v2(
            channel=channel,
            thread_ts=thread_ts,
            filename=filename,
            title=title,
            file=data,
            alt_txt=alt,
        )

    async def share(
        self, *, channel: str, thread_ts: str, documents: Sequence[DocumentView], comment: str
    ) -> None:
        """Several documents in one message (files:write), ``comment`` written above them."""
        await self._client.files_upload_v2(
            channel=channel,
            thread_ts=thread_ts,
            initial_comment=comment,
            file_uploads=[
                {"filename": d.filename, "title": d.title, "content": d.markdown} for d in documents
            ],
        )

    async def download(self, *, url: str, limit: int) -> bytes:
        """Fetch a shared file with the bot token, only from Slack's own file host."""
        parts = urlsplit(url)
        if parts.netloc.lower() not in self._file_hosts:
            raise DownloadRefusedError("its link does not point at Slack, so I didn't fetch it")
        headers = {"Authorization": f"Bearer {self._token}"}
        timeout = aiohttp.ClientTimeout(total=DOWNLOAD_TIMEOUT_S)
        async with (
            aiohttp.ClientSession(timeout=timeout) as session,
            session.get(url, headers=headers, allow_redirects=False) as response,
        ):
            if response.status != 200:
                # Without files:read Slack redirects to a login page instead of failing.
                raise DownloadRefusedError(
                    f"Slack would not hand it over (HTTP {response.status}); "
                    "is the app allowed to read files (files:read)?"
                )
            return await _read_capped(response, limit)

    async def file_info(self, *, file_id: str) -> SlackFileRef | None:
        """files.info: what a Slack Connect event leaves out (name, size, download link)."""
        try:
            response = await self._client.files_info(file=file_id)
        except SlackApiError as error:
            logger.warning(
                "files.info refused",
                extra={"file_id": file_id, "error": error.response.get("error")},
            )
            return None
        file = response.get("file")
        return file_ref(file) if isinstance(file, dict) and file.get("id") else None

    async def permalink(self, *, channel: str, ts: str) -> str | None:
        """chat.getPermalink (cached; None if Slack cannot make one)."""
        key = (channel, ts)
        if key not in self._links:
            try:
                response = await self._client.chat_getPermalink(channel=channel, message_ts=ts)
            except SlackApiError as error:
                logger.info("no permalink", extra={"error": error.response.get("error")})
                return None
            self._links[key] = str(response["permalink"])
        return self._links[key]


async def _read_capped(response: aiohttp.ClientResponse, limit: int) -> bytes:
    data = bytearray()
    async for chunk in response.content.iter_chunked(_CHUNK):
        data.extend(chunk)
        if len(data) > limit:
            raise DownloadRefusedError(f"it is larger than the {limit // (1024 * 1024)} MB limit")
    return bytes(data)
