"""Case-scoped hybrid search latency with 100k and 1M chunks in the store.

The store is filled with cases of 5,000 chunks each (a 100k-line log per case), built from
synthetic logs ingested once and copied under new case ids, then optimized as the bot does when
a table fragments. Each query searches one random case: full text (all/any words) and vectors
under the case prefilter, fused by reciprocal rank, the query embedding included.

Run as its own process: `python -m tests.benchmarks.bench_query CHUNKS [LINES_PER_CASE]`; prints
one JSON object.
"""

from __future__ import annotations

import asyncio
import json
import random
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from rag.chunking.logs import window_vectors
from rag.chunking.uploads import prepare_document
from rag.embeddings.embedder import (
    SentenceTransformerEmbedder,
    VectorCache,
    embed_with_cache,
    load_model,
)
from rag.embeddings.model import resolve_model_path
from rag.ingestion import embedding_texts
from rag.service import KnowledgeService, open_knowledge_service
from rag.store.filters import Scope
from rag.store.rows import RowScope, document_rows
from rag.store.tables import TableName
from tests.benchmarks.synthetic import synthetic_log
from tests.loghub import systems

LINES_PER_CASE = 100_000
CASES_PER_APPEND = 20
QUERIES = 60
SEEDS = 3


async def case_rows(embedder: SentenceTransformerEmbedder, seed: int, lines: int) -> pa.Table:
    """One case's rows (5,000 chunks with vectors from a synthetic 100k-line log by default)."""
    now = datetime.now(UTC)
    doc = prepare_document(
        f"app-{seed}.log", synthetic_log(lines, seed), max_bytes=1 << 30, now=now
    )
    assert doc.templates is not None
    assert doc.windows is not None
    template_vectors = await embed_with_cache(embedder, embedding_texts(doc), VectorCache())
    vectors = window_vectors(doc.templates, doc.windows, template_vectors)
    scope = RowScope("T1", "case", "template")
    return document_rows(doc, scope, f"seed{seed}", now, embedder.dimension, vectors)


def relabel(rows: pa.Table, case: int) -> pa.Table:
    """The same rows as evidence of another case (new ids, same content)."""
    replacements = {
        "scope_id": pa.array([f"C{case}"] * rows.num_rows),
        "ingest_id": pa.array([f"i{case}"] * rows.num_rows),
        "chunk_id": pc.binary_join_element_wise(f"C{case}:", rows.column("chunk_id"), ""),
    }
    for name, column in replacements.items():
        index = rows.schema.get_field_index(name)
        rows = rows.set_column(index, rows.schema.field(index), column)
    return rows


async def build(service: KnowledgeService, chunks: int, templates: list[pa.Table]) -> float:
    """Fill the evidence table with `chunks` rows; return the seconds it took."""
    started = time.perf_counter()
    cases = chunks // templates[0].num_rows
    for first in range(0, cases, CASES_PER_APPEND):
        batch = [
            relabel(templates[case % len(templates)], case)
            for case in range(first, min(first + CASES_PER_APPEND, cases))
        ]
        await service.store.add(TableName.EVIDENCE, pa.concat_tables(batch))
    await service.store.maintain(TableName.EVIDENCE, force=True)
    return time.perf_counter() - started


async def latencies(service: KnowledgeService, cases: int) -> list[float]:
    """Milliseconds per case-scoped hybrid search, query embedding included."""
    rng = random.Random(11)
    queries = [text for system in systems() for text in system.templates().values()]
    rng.shuffle(queries)
    timings = []
    for query in queries[:QUERIES]:
        scope = Scope(("T1",), "case", f"C{rng.randrange(cases)}")
        started = time.perf_counter()
        hits = await service.retriever.search(TableName.EVIDENCE, query, scope.where(), 8)
        timings.append((time.perf_counter() - started) * 1000)
        assert hits
    return timings


async def measure(chunks: int, lines_per_case: int = LINES_PER_CASE) -> dict[str, Any]:
    """Build a store of `chunks` chunks and time case-scoped hybrid searches in it."""
    path = resolve_model_path(None)
    load_model(path)
    embedder = SentenceTransformerEmbedder(path)
    templates = [await case_rows(embedder, seed, lines_per_case) for seed in range(SEEDS)]
    with tempfile.TemporaryDirectory(prefix="fm-query-") as uri:
        service = await open_knowledge_service(
            lancedb_uri=uri, embedding_model=None, llm=None, max_upload_bytes=1, embedder=embedder
        )
        build_s = await build(service, chunks, templates)
        rows = await service.store.count(TableName.EVIDENCE, "true")
        cases = rows // templates[0].num_rows
        await latencies(service, cases)  # warm caches, as a running bot has them
        timings = await latencies(service, cases)
    return {
        "chunks": rows,
        "cases": cases,
        "chunks_per_case": templates[0].num_rows,
        "build_s": round(build_s, 1),
        "p50_ms": round(statistics.median(timings), 1),
        "p95_ms": round(sorted(timings)[int(len(timings) * 0.95) - 1], 1),
    }


def main() -> None:
    """Print the measurement for the chunk count given on the command line."""
    chunks = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
    lines = int(sys.argv[2]) if len(sys.argv) > 2 else LINES_PER_CASE
    print(json.dumps(asyncio.run(measure(chunks, lines))))


if __name__ == "__main__":
    main()
