"""Until the warm-up opens the gate, vectors wait for the model instead of loading it."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from rag.embeddings.embedder import SentenceTransformerEmbedder, Vectors, waits_for_model
from rag.embeddings.gate import ModelGate
from tests.fakes.rag import HashingEmbedder

WAIT_S = 0.1


class StandInModel(SentenceTransformerEmbedder):
    """The real embedder around a stand-in model that records what it encoded."""

    def __init__(self, gate: ModelGate | None) -> None:
        super().__init__(Path("unused"), gate=gate)
        self.encoded: list[str] = []

    def encode(self, texts: Sequence[str]) -> Vectors:
        self.encoded.extend(texts)
        return np.ones((len(texts), 4), dtype=np.float32)


async def test_vectors_wait_for_the_gate_and_then_come_at_once() -> None:
    gate = ModelGate()
    embedder = StandInModel(gate)

    query = asyncio.create_task(embedder.embed(["disk full on node-3"]))
    batch = asyncio.create_task(embedder.embed([f"line {i}" for i in range(10)]))
    await asyncio.sleep(WAIT_S)
    waited = (query.done(), batch.done(), list(embedder.encoded))
    gate.open()
    vectors = await asyncio.wait_for(asyncio.gather(query, batch), 1)

    assert waited == (False, False, [])
    assert [len(v) for v in vectors] == [1, 10]


async def test_an_open_gate_or_none_lets_vectors_through() -> None:
    opened = ModelGate()
    opened.open()

    for embedder in (StandInModel(opened), StandInModel(None)):
        assert len(await asyncio.wait_for(embedder.embed(["x"]), 1)) == 1


def test_only_a_gated_model_still_loading_makes_searches_wait() -> None:
    gate = ModelGate()
    gated = StandInModel(gate)

    before = waits_for_model(gated)
    gate.open()

    assert before is True
    assert waits_for_model(gated) is False
    assert waits_for_model(StandInModel(None)) is False
    assert waits_for_model(HashingEmbedder()) is False
