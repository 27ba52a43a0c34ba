"""Slack's `file` objects, from an event or `files.info`, as the file refs the bot keeps."""

from __future__ import annotations

from typing import Any

from bot.inbox.work import SlackFileRef

Json = dict[str, Any]


def file_ref(file: Json) -> SlackFileRef:
    """A Slack `file` object (from an event or `files.info`) as a file ref."""
    return SlackFileRef(
        file_id=str(file["id"]),
        name=str(file.get("name") or file.get("title") or file["id"]),
        size=int(file.get("size") or 0),
        mimetype=str(file.get("mimetype") or "application/octet-stream"),
        download_url=file.get("url_private_download") or file.get("url_private"),
    )
