"""A case file is answered once its text is searchable; its vectors follow, even after a restart."""

from __future__ import annotations

import asyncio
from pathlib import Path

import lancedb
import numpy as np
import pyarrow as pa
import pytest

from domain.base import utc_now
from domain.knowledge import ToolStatus
from rag import ingestion
from rag.chunking.uploads import prepare_document
from rag.service import KnowledgeService
from rag.store.filters import quote
from rag.store.rows import RowScope, document_rows, row_schema
from rag.store.tables import TableName
from tests.fakes.rag import DIMENSION, HashingEmbedder
from tests.integration.rag.conftest import LanceLocation, open_at
from tests.integration.rag.test_ingestion import varied_log


def runbook_markdown(sections: int) -> bytes:
    """A markdown file with one short section per heading (one chunk each)."""
    words = ["kafka", "postgres", "redis", "nginx", "envoy", "etcd", "vault", "consul"]
    parts = ["# Operations notes"]
    for index in range(sections):
        name = f"{words[index % 8]} {words[index // 8 % 8]} step {index}"
        parts.append(f"## {name}\n\nRestart the {name} service and check its {index} replicas.")
    return "\n\n".join(parts).encode()


async def vectors_of(service: KnowledgeService, case_id: str) -> np.ndarray:
    """The case's chunk vectors, in line order."""
    where = f"scope_id = {quote(case_id)}"
    rows = await service.store.table(TableName.EVIDENCE).query().where(where).to_list()
    rows.sort(key=lambda row: (row["line_start"], row["chunk_id"]))
    return np.array([row["vector"] for row in rows], dtype=np.float32)


async def nulls(service: KnowledgeService) -> int:
    return await service.store.count(TableName.EVIDENCE, "vector IS NULL")


async def test_the_report_comes_before_the_vectors_and_searches_name_the_file_meanwhile(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(ingestion, "ROWS_PER_COMMIT", 6)  # the vectors go in four commits
    gate = asyncio.Event()  # the model's batches wait here: the vectors cannot finish
    service = await open_at(LanceLocation(str(tmp_path)), HashingEmbedder(gate=gate))

    report = await asyncio.wait_for(
        service.ingest_case_file(
            team_id="T1", case_id="C1", filename="big.log", content=varied_log(400)
        ),
        timeout=30,
    )
    during = await service.search_case_evidence(
        team_id="T1", case_id="C1", query="hotel golf delta"
    )
    elsewhere = await service.search_case_evidence(team_id="T1", case_id="C2", query="hotel")
    owed = await nulls(service)
    gate.set()
    await service.settled()
    after = await service.search_case_evidence(team_id="T1", case_id="C1", query="hotel golf")

    assert report.status is ToolStatus.OK
    assert report.still_indexing
    assert owed == report.chunks == 20
    assert during.status is ToolStatus.OK
    assert "hotel golf delta" in during.chunks[0].text
    assert during.still_indexing == ["big.log"]
    assert elsewhere.still_indexing == []
    assert await nulls(service) == 0
    assert await service.store.count(TableName.EVIDENCE, "true") == report.chunks
    assert after.still_indexing == []
    assert service.still_indexing(team_id="T1", case_id="C1") == []


async def test_a_small_file_is_answered_with_its_vectors_as_before(tmp_path: Path) -> None:
    service = await open_at(LanceLocation(str(tmp_path)), HashingEmbedder())

    report = await service.ingest_case_file(
        team_id="T1", case_id="C1", filename="small.log", content=varied_log(30)
    )

    assert report.status is ToolStatus.OK
    assert not report.still_indexing
    assert await nulls(service) == 0


@pytest.mark.parametrize(
    ("filename", "content"),
    [("big.log", varied_log(400)), ("runbook.md", runbook_markdown(600))],
)
async def test_vectors_a_stopped_process_owed_are_finished_at_the_next_start(
    lance_location: LanceLocation, filename: str, content: bytes
) -> None:
    stopped = await open_at(lance_location, HashingEmbedder(gate=asyncio.Event()))
    report = await stopped.ingest_case_file(
        team_id="T1", case_id="C1", filename=filename, content=content
    )
    owed = await nulls(stopped)
    await stopped.aclose()  # the process stops before the model is through

    embedder = HashingEmbedder()
    restarted = await open_at(lance_location, embedder)
    still_owed = await nulls(restarted)
    restarted.resume()
    await restarted.settled()
    # The same file ingested whole by the new process: what its vectors should be.
    await restarted.ingest_case_file(team_id="T1", case_id="C2", filename=filename, content=content)
    await restarted.settled()
    query = (await embedder.embed(["hotel golf delta event"]))[0]
    nearest = await restarted.retriever.nearest(
        TableName.EVIDENCE, query, "scope_id = 'C1'", limit=1
    )

    assert report.still_indexing
    assert owed == still_owed == report.chunks
    assert await nulls(restarted) == 0
    assert await restarted.store.count(TableName.EVIDENCE, "scope_id = 'C1'") == report.chunks
    assert nearest
    assert nearest[0].row["source"] == filename
    np.testing.assert_allclose(
        await vectors_of(restarted, "C1"), await vectors_of(restarted, "C2"), atol=1e-5
    )


@pytest.mark.parametrize("kept", [20, 7, 0], ids=["all", "some", "none"])
async def test_a_restart_while_the_vectors_were_being_written_is_finished(
    tmp_path: Path, kept: int
) -> None:
    service = await open_at(LanceLocation(str(tmp_path)), HashingEmbedder())
    report = await service.ingest_case_file(
        team_id="T1", case_id="C1", filename="big.log", content=varied_log(400)
    )
    await service.settled()
    before = await vectors_of(service, "C1")
    table = service.store.table(TableName.EVIDENCE)
    # What a process stopped while adding the copies with vectors (in slices, then removing the
    # text-only ones) leaves: every text-only copy, and the first ``kept`` copies with vectors.
    rows = await table.query().to_arrow()
    index = rows.schema.get_field_index("vector")
    vector = rows.schema.field(index)
    text_only = rows.set_column(index, vector, pa.nulls(rows.num_rows, vector.type))
    index = rows.schema.get_field_index("pending")
    pending = pa.array([True] * rows.num_rows)
    text_only = text_only.set_column(index, rows.schema.field(index), pending)
    await service.store.add(TableName.EVIDENCE, text_only)
    await service.store.delete(
        TableName.EVIDENCE, f"vector IS NOT NULL AND line_start > {kept * 20}"
    )

    restarted = await open_at(LanceLocation(str(tmp_path)), HashingEmbedder())
    restarted.resume()
    await restarted.settled()

    assert await nulls(restarted) == 0
    assert await restarted.store.count(TableName.EVIDENCE, "true") == report.chunks
    np.testing.assert_allclose(await vectors_of(restarted, "C1"), before, atol=1e-5)


async def test_a_case_closed_before_its_vectors_are_written_keeps_nothing(
    tmp_path: Path,
) -> None:
    gate = asyncio.Event()
    service = await open_at(LanceLocation(str(tmp_path)), HashingEmbedder(gate=gate))
    await service.ingest_case_file(
        team_id="T1", case_id="C1", filename="big.log", content=varied_log(400)
    )
    await service.ingest_case_file(
        team_id="T1", case_id="C2", filename="other.log", content=varied_log(300)
    )

    removed = await service.delete_case_evidence(team_id="T1", case_id="C1")
    gate.set()
    await service.settled()

    assert removed == 20
    assert await service.store.count(TableName.EVIDENCE, "scope_id = 'C1'") == 0
    assert await service.store.count(TableName.EVIDENCE, "scope_id = 'C2'") > 0
    assert await nulls(service) == 0
    assert service.still_indexing(team_id="T1", case_id="C1") == []


async def test_a_store_made_before_pending_rows_gains_the_column_and_nothing_is_swept(
    tmp_path: Path,
) -> None:
    uri = str(tmp_path / "lancedb")
    doc = prepare_document("old.log", varied_log(100), max_bytes=1_000_000, now=utc_now())
    vectors = np.ones((len(doc.chunks), DIMENSION), dtype=np.float32)
    rows = document_rows(doc, RowScope("T1", "case", "C1"), "old", utc_now(), DIMENSION, vectors)
    connection = await lancedb.connect_async(uri)
    old_schema = pa.schema([f for f in row_schema(DIMENSION) if f.name != "pending"])
    for name in TableName:
        await connection.create_table(name.value, schema=old_schema)
    await (await connection.open_table("evidence")).add(rows.drop_columns(["pending"]))

    service = await open_at(LanceLocation(uri), HashingEmbedder())
    service.resume()
    await service.settled()

    for name in TableName:
        assert "pending" in (await service.store.table(name).schema()).names
    kept = await service.store.table(TableName.EVIDENCE).query().select(["pending"]).to_arrow()
    assert kept.num_rows == rows.num_rows
    assert set(kept.column("pending").to_pylist()) == {None}
    found = await service.search_case_evidence(team_id="T1", case_id="C1", query="alpha bravo")
    assert found.chunks
