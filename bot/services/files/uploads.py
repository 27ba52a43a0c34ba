"""Files shared in a case thread: checked, downloaded, redacted and indexed, summarised at once.

Screenshots take another road (``bot/services/images.py``): never decoded as text, kept with the
case, and sent to the model only when it takes images.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, field

from bot.inbox.work import SlackFileRef, ThreadMessage
from bot.services.files.images import ImageReader, is_image
from bot.services.files.records import received, uploaded
from bot.services.ports import SharedFiles
from bot.slack.errors import DownloadRefusedError
from bot.thread.memory import FileRead, FileRefused, Lead
from domain.case import Case
from domain.engine.inputs import InputFile
from domain.errors import NotFoundError
from domain.knowledge import IngestReport, KnowledgePort, ToolStatus
from domain.ports import Clock, FileRepository
from domain.records import FileStatus, StoredFile

logger = logging.getLogger(__name__)


@dataclass
class Ingested:
    """The files read for the next turn, and what to say about each at the top of its answer."""

    files: list[InputFile] = field(default_factory=list)
    said: list[Lead] = field(default_factory=list)
    """Per file: what stands out in it, or why it was not read."""


class UploadService:
    """Ingests uploads into the case's evidence (redaction happens in the knowledge service)."""

    def __init__(
        self,
        *,
        files: FileRepository,
        knowledge: KnowledgePort,
        shared: SharedFiles,
        clock: Clock,
        max_bytes: int,
        images: ImageReader | None = None,
    ) -> None:
        self._images = images
        """Reads screenshots (without it, an image is refused like any binary file)."""
        self._files = files
        self._knowledge = knowledge
        self._shared = shared
        self._clock = clock
        self._max_bytes = max_bytes

    async def ingest(self, *, case: Case, messages: Sequence[ThreadMessage]) -> Ingested:
        """Every file of these messages that could be read, ready for the next turn.

        What was found in each file (or why it was not read) is kept for the answer to open with,
        so one message answers the upload.
        """
        outcome = Ingested()
        for message in messages:
            for ref in message.files:
                found = await self._one(case, ref, uploaded_by=message.author, outcome=outcome)
                if found is not None:
                    outcome.files.append(found)
        return outcome

    async def _one(
        self, case: Case, ref: SlackFileRef, *, uploaded_by: str, outcome: Ingested
    ) -> InputFile | None:
        file_id = f"{ref.file_id}@{case.case_id}"
        earlier = await self._earlier(file_id)
        if self._images is not None and is_image(ref.name, ref.mimetype):
            if earlier is not None and earlier.status is FileStatus.REFUSED:
                return None  # said when it was shared
            return await self._images.read(
                case, ref, earlier, uploaded_by=uploaded_by, outcome=outcome
            )
        if earlier is not None and earlier.status is not FileStatus.RECEIVED:
            # A resumed turn: the file was read (or refused) before the restart.
            return _input(earlier) if earlier.status is FileStatus.INGESTED else None
        if ref.download_url is None:  # only named (Slack Connect): ask Slack for the rest
            ref = await self._shared.file_info(file_id=ref.file_id) or ref
        if earlier is None:
            record = received(case, ref, uploaded_by=uploaded_by, now=self._clock.now())
            await self._files.add(record)
        else:
            # Received, but a restart cut its reading short: read it again (the knowledge store
            # replaces whatever part of it was kept).
            record = earlier
        content = await self._download(case, ref, record, outcome)
        if content is None:
            return None
        report = await self._knowledge.ingest_case_file(
            team_id=case.team_id, case_id=case.case_id, filename=ref.name, content=content
        )
        outcome.said.append(FileRead.of(report))
        stored = await self._record(record, report, size=len(content))
        return _input(stored, report) if stored.status is FileStatus.INGESTED else None

    async def _download(
        self, case: Case, ref: SlackFileRef, record: StoredFile, outcome: Ingested
    ) -> bytes | None:
        limit_mb = self._max_bytes // (1024 * 1024)
        reason: str | None = None
        if ref.size > self._max_bytes:
            reason = f"it is {ref.size / 1024 / 1024:.1f} MB and the limit is {limit_mb} MB"
        elif ref.download_url is None:
            reason = "Slack gave no download link for it"
        content = b""
        if reason is None:
            try:
                content = await self._shared.download(
                    url=str(ref.download_url), limit=self._max_bytes
                )
            except DownloadRefusedError as error:
                reason = str(error)
        if reason is None:
            return content
        await self._files.update(record.model_copy(update={"status": FileStatus.REFUSED}))
        outcome.said.append(FileRefused(filename=ref.name, reason=reason))
        logger.info("upload refused", extra={"case_id": case.case_id, "file_id": ref.file_id})
        return None

    async def _record(self, record: StoredFile, report: IngestReport, *, size: int) -> StoredFile:
        ok = report.status is not ToolStatus.ERROR
        stored = record.model_copy(
            update={
                "status": FileStatus.INGESTED if ok else FileStatus.FAILED,
                "size_bytes": size,
                "line_count": report.lines,
                "redactions": report.redactions,
                "error": report.error,
            }
        )
        await self._files.update(stored)
        return stored

    async def _earlier(self, file_id: str) -> StoredFile | None:
        try:
            return await self._files.get(file_id)
        except NotFoundError:
            return None


def _input(record: StoredFile, report: IngestReport | None = None) -> InputFile:
    return InputFile(file=uploaded(record), report=report)
