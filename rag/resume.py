"""Vectors for rows stored without them, rebuilt from what the rows keep (after a restart).

A file's rows keep everything its vectors were computed from. A document chunk is embedded as its
title, section and text (`rag.chunking.documents.embedding_text`). A log window's vector is the
rarity-weighted mean of its lines' templates: the windows' texts, in order, are the file's lines
(windows of blank lines only are not stored), so the templates are built again from them and
each stored row is one window.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from datetime import datetime

import numpy as np
import pyarrow as pa

from rag.chunking.chunks import DocumentKind
from rag.chunking.documents import embedding_text
from rag.chunking.logs import LogWindows, window_vectors
from rag.chunking.templates import TemplateTable, build_templates
from rag.chunking.templates import embedding_text as template_text
from rag.chunking.timestamps import parser_for
from rag.embeddings.embedder import Embedder, VectorCache, Vectors, embed_with_cache
from rag.store.rows import TEXT_ONLY, WITH_VECTORS, pending_column, row_schema, vector_array
from rag.store.tables import KnowledgeStore, TableName

OWNER_COLUMNS = ["ingest_id", "team_id", "kb", "scope_id", "source"]


@dataclass(frozen=True)
class OwedVectors:
    """One ingest whose rows were written without vectors."""

    ingest_id: str
    team_id: str
    kb: str
    scope_id: str
    source: str


async def unfinished_ingests(store: KnowledgeStore, table: TableName) -> list[OwedVectors]:
    """The ingests of ``table`` with rows still lacking vectors, in the order they were found."""
    query = store.table(table).query().where(TEXT_ONLY).select(OWNER_COLUMNS)
    found = (await query.to_arrow()).to_pylist()
    owed: dict[str, OwedVectors] = {}
    for row in found:
        if row["ingest_id"] not in owed:
            owed[row["ingest_id"]] = OwedVectors(**{name: row[name] for name in OWNER_COLUMNS})
    return list(owed.values())


async def stored_rows(store: KnowledgeStore, table: TableName, where: str) -> pa.Table:
    """The rows matching ``where`` without their vector column, in the order they were cut."""
    columns = [field.name for field in row_schema(store.dimension) if field.name != "vector"]
    found = await store.table(table).query().where(where).select(columns).to_arrow()
    return found.sort_by("chunk_id")  # "<ingest id>:<index>", the index zero-padded


async def vectored_chunks(store: KnowledgeStore, table: TableName, where: str) -> list[str]:
    """Chunk ids among the rows matching ``where`` that already have their copy with vectors."""
    query = store.table(table).query().where(f"{where} AND {WITH_VECTORS}")
    found = await query.select(["chunk_id"]).to_arrow()
    return [str(chunk_id) for chunk_id in found.column("chunk_id").to_pylist()]


async def stored_vectors(
    stored: pa.Table, embedder: Embedder, cache: VectorCache, now: datetime
) -> Vectors:
    """The vectors of one ingest's stored rows, as its ingestion would have computed them."""
    texts = stored.column("text").to_pylist()
    if stored.column("doc_kind")[0].as_py() != DocumentKind.LOG.value:
        titles = stored.column("title").to_pylist()
        sections = stored.column("section").to_pylist()
        return await embed_with_cache(
            embedder,
            [
                embedding_text(title, section, text)
                for title, section, text in zip(titles, sections, texts, strict=True)
            ],
            cache,
        )
    table, windows = await asyncio.to_thread(log_templates, texts, now)
    embedded = await embed_with_cache(
        embedder, [template_text(signature) for signature in table.signatures], cache
    )
    return await asyncio.to_thread(window_vectors, table, windows, embedded)


def log_templates(windows: list[str], now: datetime) -> tuple[TemplateTable, LogWindows]:
    """A log's templates built again from its stored windows, and where each window lies."""
    lines: list[str] = []
    starts: list[int] = []
    ends: list[int] = []
    for text in windows:
        starts.append(len(lines))
        lines.extend(text.split("\n"))
        ends.append(len(lines))
    table = build_templates(lines, parser_for(lines, now))
    return table, LogWindows(np.array(starts, dtype=np.int64), np.array(ends, dtype=np.int64))


def with_vector_column(stored: pa.Table, vectors: Vectors, dimension: int) -> pa.Table:
    """The stored rows, in the store's schema, with their vectors."""
    schema = row_schema(dimension)
    made = {
        "vector": vector_array(vectors, stored.num_rows, dimension),
        "pending": pending_column(False, stored.num_rows),
    }
    columns = [
        made[field.name] if field.name in made else stored.column(field.name).cast(field.type)
        for field in schema
    ]
    return pa.Table.from_arrays(columns, schema=schema)
