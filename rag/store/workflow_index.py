"""The workflow catalog in LanceDB: one row per workflow, hybrid search under label prefilters.

The seed's phase 4 (`search_workflow_catalog`): the query is the RCA's signal type and severity,
the business context (environment, priority, risk tolerance, business category) filters on the
workflows' labels, where a label value of ``*`` matches anything. The severity is a label too: it
filters on the severities a workflow suits, while the signal type is matched by full text and
meaning (an RCA may name it differently from the catalog). Rows carry the catalog's digest; the
table is rebuilt on first use after the catalog changed, so a restart with the same catalog embeds
nothing.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping
from typing import Any

import numpy as np
import pyarrow as pa
from lancedb.index import FTS
from lancedb.query import FullTextOperator

from domain.workflows.catalog import (
    ANY,
    FILTER_LABELS,
    Catalog,
    LabelFilters,
    RcaSeverity,
    Workflow,
)
from domain.workflows.ports import WorkflowMatch
from rag.embeddings.embedder import Embedder
from rag.retrieval import fuse, keyword_query, text_match
from rag.store.connection import connect
from rag.store.filters import quote

logger = logging.getLogger(__name__)

TABLE = "workflows"
FETCH = 30
LABEL_LISTS = ("severity", *FILTER_LABELS)
COLUMNS = ["chunk_id", "workflow_id", "version"]


def workflow_schema(dimension: int) -> pa.Schema:
    """Identity, searchable text, label columns (lists) and the vector."""
    return pa.schema(
        [
            pa.field("chunk_id", pa.string(), nullable=False),
            pa.field("workflow_id", pa.string(), nullable=False),
            pa.field("version", pa.string(), nullable=False),
            pa.field("digest", pa.string(), nullable=False),
            pa.field("text", pa.string(), nullable=False),
            pa.field("signal_type", pa.string(), nullable=False),
            pa.field("component", pa.string(), nullable=False),
            *(pa.field(name, pa.list_(pa.string()), nullable=False) for name in LABEL_LISTS),
            pa.field("vector", pa.list_(pa.float32(), dimension)),
        ]
    )


def searchable_text(workflow: Workflow) -> str:
    """What the signal type is matched against: the workflow's own, title and description."""
    labels = workflow.labels
    return f"{labels.signal_type} {labels.component}\n{workflow.title}\n{workflow.description}"


def split_query(query: str) -> tuple[str, RcaSeverity | None]:
    """``"OOMKilled critical"`` → ("OOMKilled", critical); a query without a severity is kept."""
    words = query.split()
    if len(words) > 1 and words[-1].lower() in {s.value for s in RcaSeverity}:
        return " ".join(words[:-1]), RcaSeverity(words[-1].lower())
    return query.strip(), None


def label_filter(filters: LabelFilters, severity: RcaSeverity | None = None) -> str | None:
    """The SQL prefilter: each business label must contain the value or the wildcard."""
    clauses = [
        f"array_has_any({label}, [{quote(value.lower())}, {quote(ANY)}])"
        for label, value in filters.items()
    ]
    if severity is not None:
        clauses.append(f"array_has(severity, {quote(severity.value)})")
    return " AND ".join(clauses) or None


class LanceWorkflowIndex:
    """WorkflowIndex over a LanceDB table next to the knowledge tables."""

    def __init__(
        self, table: Any, embedder: Embedder, catalog: Catalog, connection: Any = None
    ) -> None:
        self._connection = connection
        self._table = table
        self._embedder = embedder
        self._catalog = catalog
        self._indexed: str | None = None
        self._lock = asyncio.Lock()

    @classmethod
    async def open(
        cls,
        uri: str,
        embedder: Embedder,
        catalog: Catalog,
        storage_options: Mapping[str, str] | None = None,
    ) -> LanceWorkflowIndex:
        """Connect to ``uri`` and create the table and its full-text index if needed."""
        connection = await connect(uri, storage_options)
        existing = set((await connection.list_tables()).tables)
        if TABLE in existing:
            table = await connection.open_table(TABLE)
        else:
            schema = workflow_schema(embedder.dimension)
            table = await connection.create_table(TABLE, schema=schema, exist_ok=True)
            config = FTS(with_position=False, stem=False, remove_stop_words=False)
            await table.create_index("text", config=config)
        return cls(table, embedder, catalog, connection)

    def close(self) -> None:
        """Release the table and the connection (at shutdown)."""
        self._table.close()
        if self._connection is not None:
            self._connection.close()

    async def ensure_indexed(self) -> int:
        """Index the catalog's newest workflows unless this catalog is indexed already."""
        async with self._lock:
            digest = self._catalog.digest()
            workflows = self._catalog.latest()
            if self._indexed == digest:
                return len(workflows)
            current = await self._table.count_rows(f"digest = {quote(digest)}")
            if current != len(workflows) or await self._table.count_rows() != current:
                await self._rebuild(workflows, digest)
            self._indexed = digest
            return len(workflows)

    async def search(self, *, query: str, filters: LabelFilters, limit: int) -> list[WorkflowMatch]:
        """The best workflows for ``query`` among those the label filters allow."""
        if not await self.ensure_indexed():
            return []
        signal, severity = split_query(query)
        where = label_filter(filters, severity)
        keywords = keyword_query(signal)
        vector = (await self._embedder.embed([signal]))[0]
        # Rows with every word (the signal type and the severity) outrank rows with any of them.
        every, some = [
            await self._text_side(keywords, where, operator) if keywords else []
            for operator in (FullTextOperator.AND, FullTextOperator.OR)
        ]
        vector_rows = await self._vector_side(vector, where)
        return [
            WorkflowMatch(
                workflow_id=str(hit.row["workflow_id"]),
                version=str(hit.row["version"]),
                score=hit.score,
            )
            for hit in fuse([every, some, vector_rows], limit)
        ]

    async def _rebuild(self, workflows: list[Workflow], digest: str) -> None:
        texts = [searchable_text(w) for w in workflows]
        vectors: Any = await self._embedder.embed(texts) if texts else []
        rows = [
            _row(w, text, vector, digest)
            for w, text, vector in zip(workflows, texts, vectors, strict=True)
        ]
        await self._table.delete("true")
        if rows:
            schema = workflow_schema(self._embedder.dimension)
            await self._table.add(pa.Table.from_pylist(rows, schema=schema))
            await self._table.optimize()
        logger.info("workflow catalog indexed", extra={"workflows": len(rows)})

    async def _text_side(
        self, keywords: str, where: str | None, operator: FullTextOperator
    ) -> list[dict[str, Any]]:
        match = text_match(keywords, operator)
        query = self._table.query().nearest_to_text(match)
        if where:
            query = query.where(where)
        result = await query.select(COLUMNS).limit(FETCH).to_arrow()
        return list(result.to_pylist())

    async def _vector_side(self, vector: Any, where: str | None) -> list[dict[str, Any]]:
        query = self._table.query().nearest_to(np.asarray(vector, dtype=np.float32))
        query = query.distance_type("cosine")
        if where:
            query = query.where(where)
        result = await query.select(COLUMNS).limit(FETCH).to_arrow()
        return list(result.to_pylist())


def _row(workflow: Workflow, text: str, vector: Any, digest: str) -> dict[str, Any]:
    labels = workflow.labels
    row: dict[str, Any] = {
        "chunk_id": workflow.key,
        "workflow_id": workflow.workflow_id,
        "version": workflow.version,
        "digest": digest,
        "text": text,
        "signal_type": labels.signal_type,
        "component": labels.component,
        "vector": np.asarray(vector, dtype=np.float32).tolist(),
    }
    for name in LABEL_LISTS:
        row[name] = [str(value).lower() for value in getattr(labels, name)]
    return row
