"""Screenshots shared in a case thread: kept with the case and, for a model that takes images,
sent to it to read; a model that does not is said once per case.

Images are never decoded as text and never redacted (there is no OCR): they go to the model only
when it takes images, and only as they were shared.
"""

from __future__ import annotations

import base64
import logging
from collections.abc import Callable
from pathlib import PurePosixPath
from typing import TYPE_CHECKING

from bot.services.files.records import received, uploaded
from bot.services.ports import SharedFiles
from bot.slack.errors import DownloadRefusedError
from bot.thread.memory import FileRefused, ImageRead, NoVision
from domain.case import Case
from domain.engine.inputs import InputFile
from domain.llm import ImagePart, ImageType
from domain.ports import Clock, FileRepository
from domain.records import FileStatus, StoredFile

if TYPE_CHECKING:
    from bot.inbox.work import SlackFileRef
    from bot.services.files.uploads import Ingested

logger = logging.getLogger(__name__)

MAX_IMAGE_BYTES = 5 * 1024 * 1024
"""Largest screenshot sent to a model (providers take 5 to 20 MB; a screenshot is far less)."""
IMAGE_SUFFIXES = frozenset({".png", ".jpg", ".jpeg", ".gif", ".webp"})
NO_VISION_ERROR = "the configured model does not take images"
NOT_AN_IMAGE = "it is not a PNG, JPEG, GIF or WebP image"


def is_image(name: str, mimetype: str) -> bool:
    """A screenshot by its type or name (checked against its bytes once downloaded)."""
    return mimetype.startswith("image/") or PurePosixPath(name.lower()).suffix in IMAGE_SUFFIXES


def sniff(content: bytes) -> ImageType | None:
    """The image format its first bytes say, if it is one models take."""
    if content.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if content.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if content[:6] in (b"GIF87a", b"GIF89a"):
        return "image/gif"
    if content[:4] == b"RIFF" and content[8:12] == b"WEBP":
        return "image/webp"
    return None


class ImageReader:
    """Reads a shared image for the next turn, or says why it was not."""

    def __init__(
        self,
        *,
        files: FileRepository,
        shared: SharedFiles,
        clock: Clock,
        sees_images: Callable[[], bool],
    ) -> None:
        self._files = files
        self._shared = shared
        self._clock = clock
        self._sees_images = sees_images

    async def read(
        self,
        case: Case,
        ref: SlackFileRef,
        earlier: StoredFile | None,
        *,
        uploaded_by: str,
        outcome: Ingested,
    ) -> InputFile | None:
        """The image for the model, when it takes images; else it is recorded, and said once."""
        record = earlier or await self._keep(case, ref, uploaded_by)
        if not self._sees_images():
            told = await self._told(case, record.file_id)
            await self._files.update(_refused(record, NO_VISION_ERROR))
            if not told:
                outcome.said.append(NoVision())
            return None
        content, reason = await self._download(ref)
        media = sniff(content) if reason is None else None
        if media is None:
            reason = reason or NOT_AN_IMAGE
            await self._files.update(_refused(record, reason))
            outcome.said.append(FileRefused(filename=ref.name, reason=reason))
            logger.info("image refused", extra={"case_id": case.case_id, "file_id": ref.file_id})
            return None
        stored = record.model_copy(
            update={
                "status": FileStatus.INGESTED,
                "size_bytes": len(content),
                "content_type": media,
            }
        )
        await self._files.update(stored)
        outcome.said.append(ImageRead(filename=ref.name))
        data = base64.b64encode(content).decode("ascii")
        return InputFile(
            file=uploaded(stored), image=ImagePart(name=ref.name, media_type=media, data=data)
        )

    async def _keep(self, case: Case, ref: SlackFileRef, uploaded_by: str) -> StoredFile:
        record = received(case, ref, uploaded_by=uploaded_by, now=self._clock.now())
        await self._files.add(record)
        return record

    async def _told(self, case: Case, file_id: str) -> bool:
        """Whether the thread already heard that the model does not take images."""
        kept = await self._files.list_for_case(case.case_id)
        return any(f.error == NO_VISION_ERROR and f.file_id != file_id for f in kept)

    async def _download(self, ref: SlackFileRef) -> tuple[bytes, str | None]:
        if ref.size > MAX_IMAGE_BYTES:
            return b"", f"it is {ref.size / 1024 / 1024:.1f} MB and images are read up to 5 MB"
        if ref.download_url is None:
            return b"", "Slack gave no download link for it"
        try:
            url = str(ref.download_url)
            return await self._shared.download(url=url, limit=MAX_IMAGE_BYTES), None
        except DownloadRefusedError as error:
            return b"", str(error)


def _refused(record: StoredFile, reason: str) -> StoredFile:
    return record.model_copy(update={"status": FileStatus.REFUSED, "error": reason})
