"""Ingestion speed and memory for one log file, and the naive embed-every-chunk baseline.

Run as its own process so the peak memory is this ingestion's alone:
`python -m tests.benchmarks.bench_ingest PATH [--naive-sample N]`; prints one JSON object.
The model is loaded and warmed first, as the bot does at start-up; timing starts at the upload.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import resource
import tempfile
import time
from pathlib import Path
from typing import Any

from domain.knowledge import ToolStatus
from rag.chunking.logs import WINDOW_LINES
from rag.embeddings.embedder import SentenceTransformerEmbedder
from rag.embeddings.model import resolve_model_path
from rag.ingestion import IngestProgress
from rag.service import KnowledgeService, open_knowledge_service
from rag.store.tables import TableName

UPLOAD_LIMIT = 1 << 30


async def measure(path: Path, naive_sample: int) -> dict[str, Any]:
    """Ingest `path` as case evidence, timing when text is searchable and when all is done."""
    embedder = SentenceTransformerEmbedder(resolve_model_path(None))
    await embedder.embed(["warm up", "the model"])
    content = await asyncio.to_thread(path.read_bytes)
    with tempfile.TemporaryDirectory(prefix="fm-ingest-") as uri:
        service = await open_knowledge_service(
            lancedb_uri=uri,
            embedding_model=None,
            llm=None,
            max_upload_bytes=UPLOAD_LIMIT,
            embedder=embedder,
        )
        result = await _ingest(service, content)
    if naive_sample:
        result.update(await naive_rate(embedder, content, naive_sample))
    result["peak_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
    return result


async def _ingest(service: KnowledgeService, content: bytes) -> dict[str, Any]:
    started = time.perf_counter()
    searchable = asyncio.Event()
    seen: dict[str, float] = {}

    def progress(update: IngestProgress) -> None:
        seen.setdefault(update.stage, time.perf_counter() - started)
        if update.stage == "searchable":
            searchable.set()

    job = asyncio.create_task(
        service.ingest_case_file(
            team_id="T1", case_id="C1", filename="big.log", content=content, progress=progress
        )
    )
    waiting = asyncio.create_task(searchable.wait())
    await asyncio.wait({waiting, job}, return_when=asyncio.FIRST_COMPLETED)
    waiting.cancel()
    text_hit_s = await _first_text_hit(service, started)
    report = await job
    await service.settled()  # a case file's vectors follow its report: the total includes them
    total = time.perf_counter() - started
    assert report.status is ToolStatus.OK, report.error
    return {
        "lines": report.lines,
        "chunks": report.chunks,
        "searchable_s": round(seen["searchable"], 2),
        "first_text_hit_s": text_hit_s,
        "total_s": round(total, 2),
    }


async def _first_text_hit(service: KnowledgeService, started: float) -> float | None:
    """Seconds from the upload until a full-text query in the case returns lines."""
    table = service.store.table(TableName.EVIDENCE)
    query = table.query().nearest_to_text("PacketResponder terminating")
    hits = await query.where("team_id = 'T1' AND scope_id = 'C1'").limit(5).to_list()
    return round(time.perf_counter() - started, 2) if hits else None


async def naive_rate(
    embedder: SentenceTransformerEmbedder, content: bytes, sample: int
) -> dict[str, Any]:
    """Chunks per second when every chunk's whole text is embedded (the naive approach)."""
    rng = random.Random(5)
    chunks = [_window_at(content, rng.randrange(len(content) // 2)) for _ in range(sample)]
    started = time.perf_counter()
    await embedder.embed(chunks)
    return {"naive_chunks_per_s": round(sample / (time.perf_counter() - started), 2)}


def _window_at(content: bytes, offset: int) -> str:
    """The WINDOW_LINES whole lines after `offset` (no need to split the whole file)."""
    start = content.index(b"\n", offset) + 1
    end = start
    for _ in range(WINDOW_LINES):
        end = content.index(b"\n", end) + 1
    return content[start:end].decode("utf-8").rstrip("\n")


def main() -> None:
    """Print the measurement for the file given on the command line."""
    parser = argparse.ArgumentParser()
    parser.add_argument("path", type=Path)
    parser.add_argument("--naive-sample", type=int, default=0)
    args = parser.parse_args()
    print(json.dumps(asyncio.run(measure(args.path, args.naive_sample))))


if __name__ == "__main__":
    main()
