"""Retrieval fixtures: the real model loaded once per session, and one store of the shared data.

The session store holds every LogHub sample as evidence of case C1 in workspace T1 and every
shared runbook in the installation-wide global knowledge base (team "*"); tests open their own
connection to it, so each runs in its own event loop.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from domain.knowledge import IngestReport, KnowledgeBaseKind
from domain.llm import LLMPort
from rag.embedding_model import resolve_model_path
from rag.embeddings import Embedder, SentenceTransformerEmbedder, load_model
from rag.service import KnowledgeService, open_knowledge_service
from rag.store import TableName
from tests.loghub import RUNBOOKS, runbook_files, systems

TEAM = "T1"
CASE = "C1"
UPLOAD_LIMIT = 25 * 1024 * 1024


@pytest.fixture(scope="session")
def model_embedder() -> SentenceTransformerEmbedder:
    """The bundled all-MiniLM-L6-v2, loaded once for the whole test session."""
    path = resolve_model_path(None)
    load_model(path)
    return SentenceTransformerEmbedder(path)


async def open_service(
    uri: Path, embedder: Embedder, llm: LLMPort | None = None
) -> KnowledgeService:
    """A service on `uri` with the given embedder and LLM."""
    return await open_knowledge_service(
        lancedb_uri=str(uri),
        embedding_model=None,
        llm=llm,
        max_upload_bytes=UPLOAD_LIMIT,
        embedder=embedder,
    )


async def _populate(uri: Path, embedder: Embedder) -> dict[str, IngestReport]:
    service = await open_service(uri, embedder)
    reports = {}
    for system in systems():
        reports[system.filename] = await service.ingest_case_file(
            team_id=TEAM,
            case_id=CASE,
            filename=system.filename,
            content=system.log_path.read_bytes(),
        )
    for path in runbook_files():
        name = path.relative_to(RUNBOOKS).as_posix()
        reports[name] = await service.ingest_knowledge_file(
            team_id="*",
            kb=KnowledgeBaseKind.GLOBAL,
            scope_id=None,
            filename=name,
            content=path.read_bytes(),
        )
    for table in TableName:
        await service.store.maintain(table, force=True)
    return reports


@pytest.fixture(scope="session")
def shared_store(
    tmp_path_factory: pytest.TempPathFactory, model_embedder: SentenceTransformerEmbedder
) -> tuple[Path, dict[str, IngestReport]]:
    """A store with the shared LogHub samples and runbooks, built once (about half a minute)."""
    uri = tmp_path_factory.mktemp("shared-lancedb")
    reports = asyncio.run(_populate(uri, model_embedder))
    return uri, reports
