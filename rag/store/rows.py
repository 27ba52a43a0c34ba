"""Rows of the store: the schema and Arrow tables built from chunked documents."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

import numpy as np
import numpy.typing as npt
import pyarrow as pa

from rag.chunking.chunks import ChunkDraft
from rag.chunking.severity import severity_name
from rag.chunking.uploads import PreparedDocument

TIMESTAMP = pa.timestamp("us", tz="UTC")


def row_schema(dimension: int) -> pa.Schema:
    """Scope columns, citation columns, the text and its (possibly not yet computed) vector."""
    return pa.schema(
        [
            pa.field("chunk_id", pa.string(), nullable=False),
            pa.field("ingest_id", pa.string(), nullable=False),
            pa.field("team_id", pa.string(), nullable=False),
            pa.field("kb", pa.string(), nullable=False),
            pa.field("scope_id", pa.string(), nullable=False),
            pa.field("source", pa.string(), nullable=False),
            pa.field("title", pa.string(), nullable=False),
            pa.field("doc_kind", pa.string(), nullable=False),
            pa.field("section", pa.string()),
            pa.field("line_start", pa.int32(), nullable=False),
            pa.field("line_end", pa.int32(), nullable=False),
            pa.field("ts_first", TIMESTAMP),
            pa.field("ts_last", TIMESTAMP),
            # Seconds since midnight, for questions that name a time of day but no date.
            pa.field("tod_first", pa.int32()),
            pa.field("tod_last", pa.int32()),
            pa.field("ts_format", pa.string()),
            pa.field("severity", pa.string()),
            pa.field("severity_rank", pa.int8(), nullable=False),
            pa.field("text", pa.string(), nullable=False),
            pa.field("vector", pa.list_(pa.float32(), dimension)),
            pa.field("created_at", TIMESTAMP, nullable=False),
            # Last, as the store adds them to tables made before they existed (`tables.py`).
            pa.field("case_id", pa.string()),
            # True on a row written with its text only, its copy with vectors still to come: what
            # the start-up sweep looks for, found without reading a single vector.
            pa.field("pending", pa.bool_()),
        ]
    )


TEXT_ONLY = "pending = true"
"""Rows written with their text only (their copies with vectors are not written yet)."""
WITH_VECTORS = "pending IS NOT TRUE"
"""Rows written with their vectors (rows from before the column existed included)."""


@dataclass(frozen=True)
class RowScope:
    """Who the rows belong to: workspace, knowledge base and scope (case id, user id or "")."""

    team_id: str
    kb: str
    scope_id: str
    case_id: str | None = None
    """The finished case a generated report or runbook was written from (None otherwise)."""


def document_rows(
    doc: PreparedDocument,
    scope: RowScope,
    ingest_id: str,
    created_at: datetime,
    dimension: int,
    vectors: npt.NDArray[np.float32] | None = None,
) -> pa.Table:
    """One row per chunk; without `vectors` the vector column is null (full text only)."""
    count = len(doc.chunks)
    columns = {
        "chunk_id": pa.array([f"{ingest_id}:{index:07d}" for index in range(count)]),
        **_constant_columns(doc, scope, ingest_id, count),
        **_chunk_columns(doc.chunks),
        "vector": vector_array(vectors, count, dimension),
        "created_at": pa.array([created_at] * count, TIMESTAMP),
        "pending": pending_column(vectors is None, count),
    }
    return pa.table(columns, schema=row_schema(dimension))


def _constant_columns(
    doc: PreparedDocument, scope: RowScope, ingest_id: str, count: int
) -> dict[str, pa.Array]:
    values = {
        "ingest_id": ingest_id,
        "team_id": scope.team_id,
        "kb": scope.kb,
        "scope_id": scope.scope_id,
        "source": doc.source,
        "title": doc.title,
        "doc_kind": doc.kind.value,
        "ts_format": doc.parser.fmt.name if doc.parser.fmt else None,
        "case_id": scope.case_id,
    }
    return {name: pa.array([value] * count, pa.string()) for name, value in values.items()}


def _chunk_columns(chunks: list[ChunkDraft]) -> dict[str, pa.Array]:
    return {
        "section": pa.array([chunk.section for chunk in chunks], pa.string()),
        "line_start": pa.array([chunk.line_start for chunk in chunks], pa.int32()),
        "line_end": pa.array([chunk.line_end for chunk in chunks], pa.int32()),
        "ts_first": pa.array([chunk.ts_first for chunk in chunks], TIMESTAMP),
        "ts_last": pa.array([chunk.ts_last for chunk in chunks], TIMESTAMP),
        "tod_first": pa.array([_time_of_day(chunk.ts_first) for chunk in chunks], pa.int32()),
        "tod_last": pa.array([_time_of_day(chunk.ts_last) for chunk in chunks], pa.int32()),
        "severity": pa.array([severity_name(chunk.severity_rank) for chunk in chunks], pa.string()),
        "severity_rank": pa.array([chunk.severity_rank for chunk in chunks], pa.int8()),
        "text": pa.array([chunk.text for chunk in chunks], pa.string()),
    }


def vector_array(vectors: npt.NDArray[np.float32] | None, count: int, dimension: int) -> pa.Array:
    """A fixed-size-list column from a (count, dimension) matrix, or all nulls."""
    kind = pa.list_(pa.float32(), dimension)
    if vectors is None:
        return pa.nulls(count, kind)
    flat = pa.array(np.ascontiguousarray(vectors, dtype=np.float32).ravel(), pa.float32())
    return pa.FixedSizeListArray.from_arrays(flat, dimension)


def pending_column(pending: bool, count: int) -> pa.Array:
    """Whether rows still wait for their copies with vectors (True) or are those copies."""
    return pa.array([pending] * count, pa.bool_())


def with_vectors(rows: pa.Table, vectors: npt.NDArray[np.float32], dimension: int) -> pa.Table:
    """The same rows with their vector column filled in (no longer pending)."""
    index = rows.schema.get_field_index("vector")
    column = vector_array(vectors, rows.num_rows, dimension)
    rows = rows.set_column(index, rows.schema.field(index), column)
    index = rows.schema.get_field_index("pending")
    return rows.set_column(index, rows.schema.field(index), pending_column(False, rows.num_rows))


def _time_of_day(moment: datetime | None) -> int | None:
    if moment is None:
        return None
    return moment.hour * 3600 + moment.minute * 60 + moment.second
