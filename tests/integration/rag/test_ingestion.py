"""Ingestion: redaction first, odd files, text searchable before vectors, nothing half-visible."""

from __future__ import annotations

import asyncio
import gzip
from pathlib import Path

from domain.knowledge import ToolStatus
from rag.ingestion import IngestProgress
from rag.store.tables import TableName
from tests.fakes.rag import HashingEmbedder
from tests.integration.rag.conftest import LanceLocation, open_at, open_service

SECRET_LOG = b"""2025-10-21T14:32:10Z INFO connecting to postgresql://app:hunter2pw@db:5432/pay
2025-10-21T14:32:11Z INFO token ghp_abcdefghijklmnopqrstuvwxyz0123456789 loaded
2025-10-21T14:32:12Z ERROR auth failed with Authorization: Bearer abc123def456ghi789jkl
"""


def varied_log(lines: int) -> bytes:
    """A log whose lines are all different events (one template each)."""
    words = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india"]
    rows = [
        f"2025-10-21T14:{i // 60 % 60:02d}:{i % 60:02d}Z INFO "
        f"{words[i % 9]} {words[i // 9 % 9]} {words[i // 81 % 9]} event"
        for i in range(lines)
    ]
    return ("\n".join(rows) + "\n").encode()


async def all_text(service: object, table: TableName = TableName.EVIDENCE) -> str:
    rows = await service.store.table(table).query().select(["text"]).to_list()  # type: ignore[attr-defined]
    return "\n".join(row["text"] for row in rows)


async def test_secrets_are_redacted_before_storage_and_embedding(tmp_path: Path) -> None:
    embedder = HashingEmbedder()
    service = await open_service(tmp_path, embedder)

    report = await service.ingest_case_file(
        team_id="T1", case_id="C1", filename="app.log", content=SECRET_LOG
    )

    stored = await all_text(service)
    assert report.redactions == 3
    for secret in ("hunter2pw", "ghp_abcdef", "abc123def456"):
        assert secret not in stored
        assert not any(secret in text for text in embedder.seen)
    assert "[REDACTED]" in stored


async def test_a_gzipped_log_is_ingested_under_its_plain_name(tmp_path: Path) -> None:
    service = await open_service(tmp_path, HashingEmbedder())

    report = await service.ingest_case_file(
        team_id="T1", case_id="C1", filename="app.log.gz", content=gzip.compress(SECRET_LOG)
    )
    result = await service.search_case_evidence(team_id="T1", case_id="C1", query="auth failed")

    assert report.source == "app.log"
    assert result.chunks[0].citation.source == "app.log"


async def test_a_windows_1252_file_is_stored_as_text(tmp_path: Path) -> None:
    service = await open_service(tmp_path, HashingEmbedder())
    content = "2025-10-21T14:32:10Z ERROR café “payé” failed\n".encode("cp1252")

    await service.ingest_case_file(team_id="T1", case_id="C1", filename="a.log", content=content)

    assert "café “payé” failed" in await all_text(service)


async def test_empty_binary_and_oversized_files_are_refused_with_reasons(tmp_path: Path) -> None:
    service = await open_service(tmp_path, HashingEmbedder(), max_upload_bytes=1000)

    empty = await service.ingest_case_file(
        team_id="T1", case_id="C1", filename="e.log", content=b""
    )
    blank = await service.ingest_case_file(
        team_id="T1", case_id="C1", filename="b.log", content=b"\n \n"
    )
    binary = await service.ingest_case_file(
        team_id="T1", case_id="C1", filename="core.dump", content=b"\x7fELF\x00\x01" * 10
    )
    large = await service.ingest_case_file(
        team_id="T1", case_id="C1", filename="big.log", content=b"x\n" * 1000
    )

    assert (empty.status, blank.status) == (ToolStatus.NO_DATA, ToolStatus.NO_DATA)
    assert empty.error == "e.log is empty; there is nothing to search in it."
    assert binary.status is ToolStatus.ERROR
    assert "not text" in (binary.error or "")
    assert large.status is ToolStatus.ERROR
    assert "FM_MAX_UPLOAD_MB" in (large.error or "")
    assert await service.store.count(TableName.EVIDENCE, "true") == 0


async def test_a_big_log_is_searchable_by_text_while_vectors_are_computed(
    lance_location: LanceLocation,
) -> None:
    gate = asyncio.Event()
    service = await open_at(lance_location, HashingEmbedder(gate=gate))
    stages: list[IngestProgress] = []
    searchable = asyncio.Event()

    def progress(update: IngestProgress) -> None:
        stages.append(update)
        if update.stage == "searchable":
            searchable.set()

    job = asyncio.create_task(
        service.ingest_case_file(
            team_id="T1",
            case_id="C1",
            filename="big.log",
            content=varied_log(400),
            progress=progress,
        )
    )
    await asyncio.wait_for(searchable.wait(), timeout=30)
    during = await service.search_case_evidence(
        team_id="T1", case_id="C1", query="hotel golf delta"
    )
    pending = await service.store.count(TableName.EVIDENCE, "vector IS NULL")
    gate.set()
    report = await job
    await service.settled()  # a case file's vectors follow its report

    assert during.status is ToolStatus.OK
    assert "hotel golf delta" in during.chunks[0].text
    assert pending == report.chunks
    assert await service.store.count(TableName.EVIDENCE, "vector IS NULL") == 0
    names = [update.stage for update in stages]
    assert names[0] == "reading"
    assert names.index("searchable") < names.index("embedding") < names.index("done")


async def test_a_failure_while_embedding_leaves_nothing_behind(
    lance_location: LanceLocation,
) -> None:
    service = await open_at(lance_location, HashingEmbedder(fail_after=0))

    report = await service.ingest_case_file(
        team_id="T1", case_id="C1", filename="big.log", content=varied_log(400)
    )

    assert report.status is ToolStatus.ERROR
    assert "nothing from it was kept" in (report.error or "")
    assert await service.store.count(TableName.EVIDENCE, "true") == 0


async def test_every_line_of_a_log_can_be_found_and_cited_by_its_number(
    lance_location: LanceLocation,
) -> None:
    service = await open_at(lance_location, HashingEmbedder())
    lines = varied_log(300).decode().splitlines()
    lines[236] = "2025-10-21T14:59:59Z ERROR unique needle zebra-42 exploded"
    content = ("\r\n".join(lines)).encode()  # CRLF, no final newline

    await service.ingest_case_file(team_id="T1", case_id="C1", filename="a.log", content=content)
    result = await service.search_case_evidence(team_id="T1", case_id="C1", query="zebra-42")

    assert result.chunks[0].citation.label() == "a.log:237 (14:59:59Z)"
    assert result.chunks[0].text == lines[236]
