"""Retrieval fixtures: the real model loaded once per session, and one store of the shared data.

The session store holds every LogHub sample as evidence of case C1 in workspace T1 and every
shared runbook in the installation-wide global knowledge base (team "*"); tests open their own
connection to it, so each runs in its own event loop.

`lance_location` runs a test twice: on a local directory and on an S3 bucket of a local S3 server,
reached through the bot's own settings (FM_LANCEDB_URI=s3://..., FM_S3_*).
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from bot.adapters.object_store import lancedb_storage_options
from bot.settings import load_settings
from domain.knowledge import IngestReport, KnowledgeBaseKind
from domain.llm import LLMPort
from rag.embeddings.embedder import Embedder, SentenceTransformerEmbedder, load_model
from rag.embeddings.model import resolve_model_path
from rag.service import KnowledgeService, open_knowledge_service
from rag.store.tables import TableName
from rag.tools import CaseAccess
from tests.fakes.object_store import S3Bucket, S3Server
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


@dataclass(frozen=True)
class LanceLocation:
    """Where a test's LanceDB lives: a URI and the storage options the bot would pass with it."""

    uri: str
    storage_options: Mapping[str, str] = field(default_factory=dict)


@pytest.fixture(scope="session")
def s3_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[S3Server]:
    """One local S3 server for the session; each test takes its own bucket."""
    with S3Server.running(tmp_path_factory.mktemp("s3")) as server:
        yield server


@pytest.fixture
def s3_bucket(s3_server: S3Server) -> S3Bucket:
    """A fresh bucket for this test."""
    return s3_server.bucket()


def s3_location(bucket: S3Bucket, prefix: str = "lancedb") -> LanceLocation:
    """The location the bot's settings give for `bucket` (the composition root's own path)."""
    settings = load_settings(bucket.env(prefix), env_file=None)
    return LanceLocation(settings.lancedb_uri, lancedb_storage_options(settings))


@pytest.fixture(params=["local", "s3"])
def lance_location(request: pytest.FixtureRequest, tmp_path: Path) -> LanceLocation:
    """The test's LanceDB: a local directory, then a bucket on the local S3 server."""
    if request.param == "local":
        return LanceLocation(str(tmp_path / "lancedb"))
    return s3_location(request.getfixturevalue("s3_bucket"))


async def open_service(
    uri: Path | str,
    embedder: Embedder,
    llm: LLMPort | None = None,
    storage_options: Mapping[str, str] | None = None,
    *,
    max_upload_bytes: int = UPLOAD_LIMIT,
    case_access: CaseAccess | None = None,
) -> KnowledgeService:
    """A service on `uri` with the given embedder and LLM (and the limits the bot would give)."""
    return await open_knowledge_service(
        lancedb_uri=str(uri),
        embedding_model=None,
        llm=llm,
        max_upload_bytes=max_upload_bytes,
        embedder=embedder,
        storage_options=storage_options,
        case_access=case_access,
    )


async def open_at(location: LanceLocation, embedder: Embedder) -> KnowledgeService:
    """A service on `location` (local or S3) with the given embedder."""
    return await open_service(location.uri, embedder, storage_options=location.storage_options)


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
    await service.settled()  # case files' vectors follow their reports
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
