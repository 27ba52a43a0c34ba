"""Hybrid search: full text and vectors under the same prefilter, fused by reciprocal rank."""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass
from typing import Any

import numpy as np
from lancedb.query import FullTextOperator, MatchQuery

from rag.embeddings.embedder import Embedder, VectorCache, Vectors, waits_for_model
from rag.store.tables import KnowledgeStore, TableName

FETCH_PER_SIDE = 30
RRF_K = 60
QUERY_CACHE = 256
COLUMNS = [
    "chunk_id",
    "source",
    "title",
    "doc_kind",
    "section",
    "line_start",
    "line_end",
    "ts_first",
    "ts_last",
    "ts_format",
    "severity",
    "severity_rank",
    "text",
    "case_id",
]
_TOKEN = re.compile(r"[A-Za-z0-9_]+")
# Question words carry no evidence; the index keeps stop words, so drop them from the query.
_STOP_WORDS = frozenset(
    re.split(
        r"\s+",
        "a an and are as at be by did do does for from had has have how i in is it its me my of "
        "on or show tell that the their them there these they this those to was were what when "
        "where which who why with you your any all about find give list please see",
    )
)


@dataclass(frozen=True)
class Hit:
    """One row found, its fused score (1.0 = first in every list) and vector similarity."""

    row: dict[str, Any]
    score: float
    similarity: float | None


def keyword_query(question: str) -> str:
    """The words worth matching in the full-text index."""
    words = [word for word in _TOKEN.findall(question) if word.lower() not in _STOP_WORDS]
    return " ".join(words)


class HybridRetriever:
    """Runs both searches concurrently under one `where` and fuses them."""

    def __init__(
        self, store: KnowledgeStore, embedder: Embedder, *, fetch: int = FETCH_PER_SIDE
    ) -> None:
        self._store = store
        self._embedder = embedder
        self._fetch = fetch
        self._recent = VectorCache(capacity=QUERY_CACHE)

    async def search(self, table: TableName, query: str, where: str, limit: int) -> list[Hit]:
        """The best `limit` rows for `query` among those matching `where`."""
        keywords = keyword_query(query)
        text_task = asyncio.create_task(self._text_side(table, keywords, where))
        try:
            vector_rows = await self._vector_rows(table, query, where)
        finally:
            every, some = await text_task
        return fuse([every, some, vector_rows], limit)

    async def _vector_rows(self, table: TableName, query: str, where: str) -> list[dict[str, Any]]:
        """The vector side; skipped while the model loads if nothing is there to find."""
        # A case with no uploads and an empty knowledge base must not wait for the model the
        # warm-up is still loading just to learn that.
        if waits_for_model(self._embedder) and not await self._store.count(table, where):
            return []
        vector = await self._query_vector(query)
        return await self._vector_side(table, vector, where, self._fetch)

    async def _query_vector(self, query: str) -> Vectors:
        """The query's vector; filters relaxed one by one ask for the same query again."""
        cached = self._recent.get(query)
        if cached is None:
            # Written like a template (LogHub's <*>), a query reads as templates were embedded.
            cached = (await self._embedder.embed([query.replace("<*>", "*")]))[0]
            self._recent.put(query, cached)
        return cached

    async def nearest(self, table: TableName, vector: Vectors, where: str, limit: int) -> list[Hit]:
        """Vector-only neighbours of `vector` (for "is there already a runbook like this?")."""
        rows = await self._vector_side(table, vector, where, limit)
        return fuse([rows], limit)

    async def _text_side(
        self, table: TableName, keywords: str, where: str
    ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        """Rows with every keyword, and rows with any (identifiers need all their parts)."""
        if not keywords:
            return [], []
        every, some = await asyncio.gather(
            self._match(table, keywords, FullTextOperator.AND, where),
            self._match(table, keywords, FullTextOperator.OR, where),
        )
        return every, some

    async def _match(
        self, table: TableName, keywords: str, operator: FullTextOperator, where: str
    ) -> list[dict[str, Any]]:
        match = text_match(keywords, operator)
        query = self._store.table(table).query().nearest_to_text(match)
        result = await query.where(where).select(COLUMNS).limit(self._fetch).to_arrow()
        return list(result.to_pylist())

    async def _vector_side(
        self, table: TableName, vector: Vectors, where: str, limit: int
    ) -> list[dict[str, Any]]:
        query = self._store.table(table).query().nearest_to(np.asarray(vector, dtype=np.float32))
        # Naming `_distance` keeps it (LanceDB warns that it will stop adding it unasked).
        columns = [*COLUMNS, "_distance"]
        query = query.distance_type("cosine").where(where).select(columns).limit(limit)
        return list((await query.to_arrow()).to_pylist())


def fuse(ranked: list[list[dict[str, Any]]], limit: int) -> list[Hit]:
    """Reciprocal-rank fusion of ranked lists (all keywords, any keyword, vector) by chunk id."""
    # A row with every keyword is in both text lists, so a whole message matched exactly
    # outranks rows that merely share its common words.
    rows: dict[str, dict[str, Any]] = {}
    scores: dict[str, float] = {}
    for results in ranked:
        seen: set[str] = set()
        for rank, row in enumerate(results, 1):
            chunk_id = row["chunk_id"]
            if chunk_id in seen:
                continue  # a row being rewritten with its vector may briefly appear twice
            seen.add(chunk_id)
            rows.setdefault(chunk_id, row)
            scores[chunk_id] = scores.get(chunk_id, 0.0) + 1.0 / (RRF_K + rank)
    best = len(ranked) / (RRF_K + 1)
    ordered = sorted(rows, key=lambda chunk_id: (-scores[chunk_id], chunk_id))[:limit]
    return [
        Hit(
            row=rows[chunk_id],
            score=round(scores[chunk_id] / best, 4),
            similarity=_similarity(rows[chunk_id]),
        )
        for chunk_id in ordered
    ]


def _similarity(row: dict[str, Any]) -> float | None:
    distance = row.get("_distance")
    return None if distance is None else 1.0 - float(distance)


def text_match(keywords: str, operator: FullTextOperator) -> MatchQuery:
    """A full-text query on the ``text`` column: exact terms (no fuzziness), plain BM25."""
    return MatchQuery(
        keywords,
        "text",
        operator=operator,
        boost=1.0,
        fuzziness=0,
        max_expansions=50,
        prefix_length=0,
        document_granularity=None,
    )
