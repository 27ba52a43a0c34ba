"""Finished cases' reports and runbooks: kept with their case, found again; old stores upgraded."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import lancedb
import pyarrow as pa

from domain.knowledge import KnowledgeBaseKind, ToolStatus
from rag.chunking.uploads import prepare_document
from rag.service import KnowledgeService
from rag.store.rows import RowScope, document_rows, row_schema
from rag.store.tables import KnowledgeStore, TableName
from tests.fakes.rag import DIMENSION, HashingEmbedder
from tests.integration.rag.conftest import open_service

NOW = datetime(2026, 11, 12, 18, 20, tzinfo=UTC)
REPORT = """# Case report: checkout 502s after the deploy

## Root cause
The deploy cut the database connection pool from 50 to 10; requests time out waiting.
"""
OTHER = """# Runbook: disk full on the database

## When to use this
- PostgreSQL stops accepting writes: no space left on device
"""


async def save(
    service: KnowledgeService,
    markdown: str,
    *,
    team: str = "T1",
    case_id: str | None = None,
    kb: KnowledgeBaseKind = KnowledgeBaseKind.GLOBAL,
    title: str = "Case report: checkout 502s after the deploy",
) -> None:
    report = await service.save_document(
        team_id=team, kb=kb, scope_id=None, title=title, markdown=markdown, case_id=case_id
    )
    assert report.status is ToolStatus.OK


async def test_a_case_document_is_found_with_its_case_for_a_similar_problem(
    tmp_path: Path,
) -> None:
    service = await open_service(tmp_path, HashingEmbedder())
    await save(service, REPORT, case_id="case_pool")
    await save(service, OTHER, case_id="case_disk", title="Runbook: disk full on the database")

    hits = await service.search_case_documents(
        team_id="T1", text="checkout 502s: the database connection pool times out"
    )

    assert hits[0].case_id == "case_pool"
    assert hits[0].title == "Case report: checkout 502s after the deploy"
    assert hits[0].similarity > hits[-1].similarity
    assert {hit.case_id for hit in hits} == {"case_pool", "case_disk"}


async def test_only_documents_of_this_workspaces_cases_are_searched(tmp_path: Path) -> None:
    service = await open_service(tmp_path, HashingEmbedder())
    await save(service, REPORT, team="T2", case_id="case_elsewhere")
    await save(service, REPORT, team="*")  # installation-wide, written by `fm kb ingest`
    await save(service, REPORT)  # saved by hand, not from a case

    assert await service.search_case_documents(team_id="T1", text="checkout 502s") == []


async def test_an_empty_store_answers_without_embedding_the_problem(tmp_path: Path) -> None:
    embedder = HashingEmbedder()
    service = await open_service(tmp_path, embedder)

    assert await service.search_case_documents(team_id="T1", text="checkout 502s") == []
    assert embedder.seen == []


async def test_two_cases_with_the_same_title_keep_their_own_documents(tmp_path: Path) -> None:
    service = await open_service(tmp_path, HashingEmbedder())
    await save(service, REPORT, case_id="case_one")
    await save(service, REPORT, case_id="case_two")
    await save(service, REPORT + "\nWritten again.\n", case_id="case_two")

    hits = await service.search_case_documents(team_id="T1", text="checkout 502s", limit=50)

    sources = {hit.case_id for hit in hits}
    assert sources == {"case_one", "case_two"}
    table = service.store.table(TableName.KNOWLEDGE)
    rows = (await table.query().select(["case_id", "text"]).to_arrow()).to_pylist()
    assert sum("Written again" in row["text"] for row in rows) == 1
    assert sum(row["case_id"] == "case_two" for row in rows) == sum(
        row["case_id"] == "case_one" for row in rows
    )


async def test_a_store_made_before_case_ids_gains_the_column_and_keeps_its_rows(
    tmp_path: Path,
) -> None:
    uri = str(tmp_path / "lancedb")
    doc = prepare_document("old.md", OTHER.encode(), max_bytes=1_000_000, now=NOW)
    rows = document_rows(doc, RowScope("T1", "global", ""), "old", NOW, DIMENSION)
    connection = await lancedb.connect_async(uri)
    old_schema = pa.schema([f for f in row_schema(DIMENSION) if f.name != "case_id"])
    for name in TableName:
        await connection.create_table(name.value, schema=old_schema)
    await (await connection.open_table("knowledge")).add(rows.drop_columns(["case_id"]))

    store = await KnowledgeStore.open(uri, DIMENSION)

    for name in TableName:
        assert "case_id" in (await store.table(name).schema()).names
    kept = await store.table(TableName.KNOWLEDGE).query().select(["case_id"]).to_arrow()
    assert kept.num_rows == rows.num_rows
    assert set(kept.column("case_id").to_pylist()) == {None}
    service = await open_service(uri, HashingEmbedder())
    await save(service, REPORT, case_id="case_pool")
    hits = await service.search_case_documents(team_id="T1", text="checkout pool")
    assert {hit.case_id for hit in hits} == {"case_pool"}
