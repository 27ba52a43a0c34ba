"""A search while the model loads waits for it only when there is something to find."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from domain.knowledge import KnowledgeBaseKind, ToolStatus
from rag.embeddings.embedder import SentenceTransformerEmbedder, Vectors
from rag.embeddings.gate import ModelGate
from tests.fakes.rag import HashingEmbedder, hashed
from tests.integration.rag.conftest import open_service

TEAM = "T1"
QUERY = "node filesystem almost full"
RUNBOOK = b"# Node disk full\n\n## Fix\n\nFree space on the node filesystem: journalctl --vacuum.\n"
WAIT_S = 0.3


class LoadingModel(SentenceTransformerEmbedder):
    """The real embedder with a gate, around hashed vectors (the real model is not needed)."""

    def __init__(self, gate: ModelGate) -> None:
        super().__init__(Path("unused"), gate=gate)

    @property
    def dimension(self) -> int:
        return HashingEmbedder().dimension

    def encode(self, texts: Sequence[str]) -> Vectors:
        return np.stack([hashed(text) for text in texts]).astype(np.float32)


async def test_an_empty_knowledge_base_is_searched_without_waiting_for_the_model(
    tmp_path: Path,
) -> None:
    gate = ModelGate()
    service = await open_service(tmp_path / "lancedb", LoadingModel(gate))

    found = await asyncio.wait_for(service.search_global(team_id=TEAM, query=QUERY), 5)

    assert found.status is ToolStatus.NO_DATA
    assert not gate.is_open


async def test_a_knowledge_base_with_content_is_searched_once_the_model_is_loaded(
    tmp_path: Path,
) -> None:
    uri = tmp_path / "lancedb"
    writer = await open_service(uri, HashingEmbedder())
    await writer.ingest_knowledge_file(
        team_id=TEAM,
        kb=KnowledgeBaseKind.GLOBAL,
        scope_id=None,
        filename="disk.md",
        content=RUNBOOK,
    )
    gate = ModelGate()
    service = await open_service(uri, LoadingModel(gate))

    searching = asyncio.create_task(service.search_global(team_id=TEAM, query=QUERY))
    await asyncio.sleep(WAIT_S)
    waited = not searching.done()
    gate.open()
    found = await asyncio.wait_for(searching, 5)

    assert waited
    assert found.status is ToolStatus.OK
    assert found.chunks[0].citation.label() == "Node disk full"
