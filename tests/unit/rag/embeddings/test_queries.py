"""Small embedding requests made at the same time share one model call (a burst of searches)."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from rag.embeddings import embedder as embeddings
from rag.embeddings.embedder import SMALL_REQUEST, SentenceTransformerEmbedder, Vectors

DIMENSION = 4


class CountingEmbedder(SentenceTransformerEmbedder):
    """The real request handling around a stand-in model: one-hot-ish vectors, calls recorded."""

    def __init__(
        self, *, busy_s: float = 0.05, fail_next: bool = False, batch_size: int = 32
    ) -> None:
        super().__init__(Path("unused"), batch_size=batch_size)
        self.calls: list[list[str]] = []
        self.busy_s = busy_s
        self.fail_next = fail_next
        self._lock = threading.Lock()

    def encode(self, texts: Sequence[str]) -> Vectors:
        with self._lock:
            self.calls.append(list(texts))
            if self.fail_next:
                self.fail_next = False
                raise RuntimeError("model fell over")
        time.sleep(self.busy_s)
        return np.array([vector_for(text) for text in texts], dtype=np.float32)


def vector_for(text: str) -> list[float]:
    return [float(len(text)), float(sum(map(ord, text)) % 97), 1.0, 0.0]


async def test_concurrent_queries_share_model_calls_and_each_gets_its_own_vector() -> None:
    embedder = CountingEmbedder()
    texts = [f"query number {n}" for n in range(20)]

    vectors = await asyncio.gather(*(embedder.embed([text]) for text in texts))

    # All were asked before the model was free: one call for all of them.
    assert len(embedder.calls) == 1
    assert sorted(t for call in embedder.calls for t in call) == sorted(texts)
    for text, vector in zip(texts, vectors, strict=True):
        assert vector.shape == (1, DIMENSION)
        assert vector[0].tolist() == vector_for(text)


async def test_queries_asked_while_the_model_works_wait_for_the_next_call() -> None:
    embedder = CountingEmbedder(busy_s=0.2)
    first = asyncio.create_task(embedder.embed(["first"]))
    await asyncio.sleep(0.05)  # the model is busy with "first" now

    later = await asyncio.gather(*(embedder.embed([f"later {n}"]) for n in range(5)))
    await first

    assert embedder.calls == [["first"], [f"later {n}" for n in range(5)]]
    assert [v[0].tolist() for v in later] == [vector_for(f"later {n}") for n in range(5)]


async def test_the_same_query_asked_at_once_is_encoded_once() -> None:
    embedder = CountingEmbedder()
    await embedder.embed(["warm"])  # the next three arrive together, while nothing runs

    first, second, third = await asyncio.gather(
        *(embedder.embed(["disk full on db-1"]) for _ in range(3))
    )

    assert embedder.calls[1:] == [["disk full on db-1"]]
    assert first.tolist() == second.tolist() == third.tolist()


async def test_a_model_error_reaches_every_waiting_caller_and_the_next_call_works() -> None:
    embedder = CountingEmbedder(fail_next=True)

    results = await asyncio.gather(
        *(embedder.embed([f"q{n}"]) for n in range(3)), return_exceptions=True
    )

    assert all(isinstance(r, RuntimeError) for r in results)
    assert (await embedder.embed(["again"]))[0].tolist() == vector_for("again")


async def test_many_small_requests_are_split_by_batch_size() -> None:
    embedder = CountingEmbedder(busy_s=0.0, batch_size=8)

    await asyncio.gather(*(embedder.embed([f"q{n}"]) for n in range(20)))

    assert all(len(call) <= 8 for call in embedder.calls)
    assert sum(len(call) for call in embedder.calls) == 20


async def test_large_requests_keep_the_batched_path_with_progress() -> None:
    embedder = CountingEmbedder(busy_s=0.0, batch_size=8)
    texts = [f"line {n}" for n in range(SMALL_REQUEST + 15)]
    progress: list[int] = []

    vectors = await embedder.embed(texts, on_batch=progress.append)

    assert vectors.shape == (len(texts), DIMENSION)
    assert progress == [8, 16, len(texts)]


@pytest.mark.parametrize("size", [1, SMALL_REQUEST])
async def test_small_requests_report_progress_too(size: int) -> None:
    embedder = CountingEmbedder(busy_s=0.0)
    progress: list[int] = []

    await embedder.embed([f"t{n}" for n in range(size)], on_batch=progress.append)

    assert progress == [size]


class StandInModel:
    """Records what it was asked to encode, as the loaded model (ONNX copy or torch) would."""

    def __init__(self) -> None:
        self.encoded: list[list[str]] = []

    def encode(self, texts: list[str]) -> np.ndarray:
        self.encoded.append(texts)
        return np.ones((len(texts), DIMENSION), dtype=np.float32)


def test_warming_the_model_loads_it_and_runs_one_forward_pass(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    model, loaded = StandInModel(), []

    def load(path: Path, export_dir: Path | None) -> StandInModel:
        loaded.append((path, export_dir))
        return model

    monkeypatch.setattr(embeddings, "load_model", load)

    embeddings.warm_model(Path("model"), Path("copies"))

    assert loaded
    assert set(loaded) == {(Path("model"), Path("copies"))}
    assert len(model.encoded) == 1
