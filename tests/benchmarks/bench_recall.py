"""Retrieval quality on the shared LogHub samples: template recall@5 and citation validity.

For every event template of every system, the template text is the query, scoped to that
system's file; a hit counts when a chunk in the top five contains a line of that template
(LineId and EventId from the structured CSV). Every cited excerpt returned for the same queries
is also checked: its text must be exactly the file's lines it cites.
`python -m tests.benchmarks.bench_recall [SYSTEMS]` scores only the first SYSTEMS systems.
"""

from __future__ import annotations

import asyncio
import json
import sys
import tempfile
import time
from typing import Any

from rag.chunking.decoding import split_lines
from rag.embeddings.embedder import SentenceTransformerEmbedder, load_model
from rag.embeddings.model import resolve_model_path
from rag.service import KnowledgeService, open_knowledge_service
from rag.store.filters import Scope, quote
from rag.store.tables import TableName
from tests.loghub import LogSystem, systems

TOP_K = 5


async def measure(count: int | None = None) -> dict[str, Any]:
    """Ingest every system (or the first ``count``) into one case and score their templates."""
    chosen = systems()[:count]
    path = resolve_model_path(None)
    load_model(path)
    with tempfile.TemporaryDirectory(prefix="fm-recall-") as uri:
        service = await open_knowledge_service(
            lancedb_uri=uri,
            embedding_model=None,
            llm=None,
            max_upload_bytes=64 * 1024 * 1024,
            embedder=SentenceTransformerEmbedder(path),
        )
        started = time.perf_counter()
        for system in chosen:
            await service.ingest_case_file(
                team_id="T1",
                case_id="C1",
                filename=system.filename,
                content=system.log_path.read_bytes(),
            )
        await service.settled()  # the vectors follow each report: recall is measured with them
        ingest_s = time.perf_counter() - started
        by_system = {system.name: await _score(service, system) for system in chosen}
    found = sum(result["found"] for result in by_system.values())
    total = sum(result["templates"] for result in by_system.values())
    return {
        "recall_at_5": round(found / total, 4),
        "templates": total,
        "citation_errors": sum(result["citation_errors"] for result in by_system.values()),
        "citations_checked": sum(result["citations_checked"] for result in by_system.values()),
        "ingest_16k_lines_s": round(ingest_s, 1),
        "by_system": {name: result["recall"] for name, result in by_system.items()},
    }


async def _score(service: KnowledgeService, system: LogSystem) -> dict[str, Any]:
    events = {row.line: row.event_id for row in system.ground_truth()}
    lines = split_lines(system.log_path.read_text(encoding="utf-8"))
    scope = Scope(("T1",), "case", "C1")
    where = f"{scope.where()} AND source = {quote(system.filename)}"
    found = checked = errors = 0
    templates = system.templates()
    for event_id, template in templates.items():
        hits = await service.retriever.search(TableName.EVIDENCE, template, where, TOP_K)
        found += any(
            events.get(line) == event_id
            for hit in hits
            for line in range(hit.row["line_start"], hit.row["line_end"] + 1)
        )
        for item in (await service.qa.search(TableName.EVIDENCE, scope, template, TOP_K)).excerpts:
            checked += 1
            cited = "\n".join(lines[item.line_start - 1 : item.line_end])
            errors += item.source == system.filename and item.text != cited
    return {
        "found": found,
        "templates": len(templates),
        "recall": round(found / len(templates), 4),
        "citations_checked": checked,
        "citation_errors": errors,
    }


def main() -> None:
    """Print the measurement as one JSON object."""
    count = int(sys.argv[1]) if len(sys.argv) > 1 else None
    print(json.dumps(asyncio.run(measure(count))))


if __name__ == "__main__":
    main()
