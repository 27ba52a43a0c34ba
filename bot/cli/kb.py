"""`fm kb ingest` and `fm kb search`: the knowledge base from the command line.

Content ingested here belongs to the whole installation, not to one Slack workspace: it is
stored with team id ``"*"``, which every workspace's global-knowledge-base search includes.
``--kb user:<slack-user-id>`` stores personal runbooks for that user (team ``"*"`` too), which
only that user's personal-runbook searches see. ``fm kb search`` searches the same
installation-wide rows: the command line belongs to no workspace, so it never shows one
workspace's content.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from bot.adapters.object_store import lancedb_storage_options
from bot.settings import Settings
from bot.wiring.model_copy import save_model_copy
from domain.knowledge import IngestReport, KnowledgeBaseKind, ToolStatus
from rag.excerpts import Excerpt
from rag.service import KnowledgeService, open_knowledge_service
from rag.tools import INSTALLATION_TEAM

SEARCH_LIMIT = 10
# Files picked up when a directory is given; single files are always tried.
TEXT_SUFFIXES = frozenset(
    {".md", ".markdown", ".txt", ".log", ".yaml", ".yml", ".json", ".ini", ".cfg", ".conf"}
    | {".toml", ".properties", ".jsonl", ".ndjson", ".gz", ".out", ".err"}
)


def kb_ingest(settings: Settings, paths: Sequence[str], kb: str) -> int:
    """Ingest files and directories into the global KB or a user's runbooks; 1 if any failed."""
    try:
        kind, scope_id = parse_kb(kb)
        files = expand_paths(paths)
    except ValueError as exc:
        print(f"fm kb ingest: {exc}", file=sys.stderr)
        return 2
    code = asyncio.run(_ingest(settings, files, kind, scope_id))
    if code == 0:
        save_model_copy(settings, "fm kb ingest")
    return code


def kb_search(settings: Settings, query: str, kb: str, as_json: bool) -> int:
    """Print the best hits for `query`, as text or one JSON object per line."""
    try:
        kind, scope_id = parse_kb(kb)
    except ValueError as exc:
        print(f"fm kb search: {exc}", file=sys.stderr)
        return 2
    code = asyncio.run(_search(settings, query, kind, scope_id, as_json))
    if code == 0:
        save_model_copy(settings, "fm kb search")
    return code


def parse_kb(kb: str) -> tuple[KnowledgeBaseKind, str | None]:
    """`global` or `user:<slack-user-id>` as a knowledge base and scope id."""
    if kb == "global":
        return KnowledgeBaseKind.GLOBAL, None
    if kb.startswith("user:") and len(kb) > len("user:"):
        return KnowledgeBaseKind.PERSONAL, kb.removeprefix("user:")
    raise ValueError(f"expected 'global' or 'user:<slack-user-id>', got {kb!r}")


def expand_paths(paths: Sequence[str]) -> list[tuple[Path, str]]:
    """Each file to ingest with the name it is cited by (directories walked, text files only)."""
    files: list[tuple[Path, str]] = []
    for given in paths:
        path = Path(given)
        if path.is_dir():
            base = path.resolve().parent
            for found in sorted(path.rglob("*")):
                if found.is_file() and found.suffix.lower() in TEXT_SUFFIXES:
                    files.append((found, found.resolve().relative_to(base).as_posix()))
        elif path.is_file():
            files.append((path, path.name))
        else:
            raise ValueError(f"{given}: no such file or directory")
    return files


async def _open(settings: Settings) -> KnowledgeService:
    return await open_knowledge_service(
        lancedb_uri=settings.lancedb_uri,
        storage_options=lancedb_storage_options(settings),
        embedding_model=settings.embedding_model,
        export_dir=settings.embedding_export_dir,
        llm=None,
        max_upload_bytes=settings.max_upload_bytes,
    )


async def _ingest(
    settings: Settings,
    files: list[tuple[Path, str]],
    kind: KnowledgeBaseKind,
    scope_id: str | None,
) -> int:
    try:
        service = await _open(settings)
    except (OSError, RuntimeError, ValueError) as exc:
        print(f"fm kb ingest: cannot open the knowledge base: {exc}", file=sys.stderr)
        return 1
    failed = 0
    for path, name in files:
        report = await service.ingest_knowledge_file(
            team_id=INSTALLATION_TEAM,
            kb=kind,
            scope_id=scope_id,
            filename=name,
            content=path.read_bytes(),
        )
        failed += report.status is ToolStatus.ERROR
        _print_report(report)
    return 1 if failed else 0


def _print_report(report: IngestReport) -> None:
    if report.status is ToolStatus.OK:
        print(
            f"ingested {report.source}: {report.chunks} chunks from {report.lines} lines, "
            f"{report.redactions} secrets redacted"
        )
    else:
        print(f"skipped {report.source}: {report.error}", file=sys.stderr)


async def _search(
    settings: Settings,
    query: str,
    kind: KnowledgeBaseKind,
    scope_id: str | None,
    as_json: bool,
) -> int:
    try:
        service = await _open(settings)
        hits = await service.search_excerpts(
            team_id=INSTALLATION_TEAM,
            kb=kind,
            scope_id=scope_id or "",
            query=query,
            limit=SEARCH_LIMIT,
        )
    except (OSError, RuntimeError, ValueError) as exc:
        print(f"fm kb search: {exc}", file=sys.stderr)
        return 1
    try:
        for rank, hit in enumerate(hits, 1):
            print(json.dumps(hit_json(hit)) if as_json else _hit_text(rank, hit), flush=True)
    except BrokenPipeError:
        # The reader (`| head`) has had enough; stop quietly, as command-line tools do.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    if not hits and not as_json:
        print("No matches.", file=sys.stderr)
    return 0


def hit_json(hit: Excerpt) -> dict[str, object]:
    """The DESIGN §4 shape of one hit."""
    return {
        "source": hit.source,
        "line_start": hit.line_start,
        "line_end": hit.line_end,
        "timestamp": hit.timestamp.isoformat() if hit.timestamp else None,
        "score": hit.score,
        "text": hit.text,
    }


def _hit_text(rank: int, hit: Excerpt) -> str:
    lines = (
        f"{hit.line_start}"
        if hit.line_start == hit.line_end
        else (f"{hit.line_start}-{hit.line_end}")
    )
    where = f" › {hit.section}" if hit.section else ""
    where += f" ({hit.timestamp.isoformat()})" if hit.timestamp else ""
    body = "\n".join(f"    {line}" for line in hit.text.splitlines()[:6])
    return f"{rank}. {hit.source}:{lines}{where}  (score {hit.score:.2f})\n{body}"
