"""Files shared in a message, as attachment chips (with the first lines when Slack has them)."""

from __future__ import annotations

import html
from typing import Any

JsonDict = dict[str, Any]
PREVIEW_LINES = 6
_LABELS = {"text": "TXT", "markdown": "MD", "json": "JSON", "csv": "CSV", "gzip": "GZ"}


def files_to_html(files: list[JsonDict]) -> str:
    """Every file of a message, one chip each."""
    return "".join(file_chip(file) for file in files)


def file_chip(file: JsonDict) -> str:
    """Icon, title, type and size; a short preview under it when the file object has one."""
    filetype = str(file.get("filetype") or "")
    label = _LABELS.get(filetype, (filetype or "file")[:4].upper())
    title = html.escape(str(file.get("title") or file.get("name") or file.get("id", "file")))
    kind = html.escape(str(file.get("pretty_type") or filetype or "File"))
    size = human_size(file.get("size"))
    meta = f"{kind} · {size}" if size else kind
    chip = (
        f'<div class="file"><div class="file-icon ft-{html.escape(filetype or "file")}">'
        f'{html.escape(label)}</div><div class="file-info"><div class="file-name">{title}</div>'
        f'<div class="file-meta">{meta}</div></div></div>'
    )
    return chip + _preview(file)


def human_size(size: Any) -> str:
    """Bytes as Slack writes them: "812 B", "19 KB", "2.4 MB"."""
    if not isinstance(size, int) or size < 0:
        return ""
    if size < 1024:
        return f"{size} B"
    if size < 1024 * 1024:
        return f"{round(size / 1024)} KB"
    return f"{size / (1024 * 1024):.1f} MB"


def _preview(file: JsonDict) -> str:
    preview = file.get("preview")
    if not isinstance(preview, str) or not preview.strip():
        return ""
    lines = preview.splitlines()
    shown = "\n".join(lines[:PREVIEW_LINES])
    more = len(lines) > PREVIEW_LINES or bool(file.get("preview_is_truncated"))
    tail = '<div class="file-more">…</div>' if more else ""
    return f'<div class="file-preview"><pre>{html.escape(shown)}</pre>{tail}</div>'
