"""A file shared in a case thread, as the bot keeps it: its record, and the case's view of it."""

from __future__ import annotations

from datetime import datetime

from bot.inbox.work import SlackFileRef
from domain.case import Case
from domain.investigation.evidence import UploadedFile
from domain.records import StoredFile


def received(case: Case, ref: SlackFileRef, *, uploaded_by: str, now: datetime) -> StoredFile:
    """The record of a file just shared into ``case``, before it is read."""
    return StoredFile(
        file_id=f"{ref.file_id}@{case.case_id}",
        case_id=case.case_id,
        filename=ref.name,
        content_type=ref.mimetype,
        size_bytes=ref.size,
        source_ref=ref.file_id,
        uploaded_by=uploaded_by,
        created_at=now,
    )


def uploaded(record: StoredFile) -> UploadedFile:
    """The file as the case sees it."""
    return UploadedFile(
        file_id=record.file_id,
        filename=record.filename,
        content_type=record.content_type,
        size_bytes=record.size_bytes,
        uploaded_at=record.created_at,
        uploaded_by=record.uploaded_by,
        source_ref=record.source_ref,
        line_count=record.line_count,
        redactions=record.redactions,
    )
