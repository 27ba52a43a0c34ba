"""Sentence embeddings computed locally: the model is loaded once per process, lazily."""

from __future__ import annotations

import asyncio
import json
import logging
import threading
import weakref
from collections import OrderedDict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Protocol

import numpy as np
import numpy.typing as npt

from rag.embeddings.backend import load_encoder
from rag.embeddings.gate import ModelGate

logger = logging.getLogger(__name__)

Vectors = npt.NDArray[np.float32]
BATCH_SIZE = 32
SMALL_REQUEST = 4
"""Requests of at most this many texts (search queries) are coalesced with concurrent ones."""
_LOCK = threading.Lock()
# One loaded model per directory (and copy folder) for the whole process.
_MODELS: dict[tuple[str, str | None], Encoder] = {}


class Encoder(Protocol):
    """A loaded model (ONNX copy or torch), computing vectors on the calling thread."""

    @property
    def dimension(self) -> int:
        """Length of each vector."""
        ...

    def encode(self, texts: Sequence[str]) -> Vectors:
        """Unit-length vectors for `texts`, in order."""
        ...


class Embedder(Protocol):
    """Turns texts into unit-length vectors."""

    @property
    def dimension(self) -> int:
        """Length of each vector."""
        ...

    async def embed(
        self, texts: Sequence[str], *, on_batch: Callable[[int], None] | None = None
    ) -> Vectors:
        """Vectors for `texts` (rows in order); `on_batch` hears how many are done so far."""
        ...


def load_model(path: Path, export_dir: Path | None = None) -> Encoder:
    """The model at `path`, loaded on first use and then shared (see rag.embeddings.backend)."""
    key = (str(path), str(export_dir) if export_dir else None)
    with _LOCK:
        if key not in _MODELS:
            _MODELS[key] = load_encoder(path, export_dir)
        return _MODELS[key]


def reload_model(path: Path, export_dir: Path | None) -> Encoder:
    """Load the model again in place of the shared one (its ONNX copy was just made)."""
    key = (str(path), str(export_dir) if export_dir else None)
    encoder = load_encoder(path, export_dir)
    with _LOCK:
        # Encodings under way finish with the encoder they hold; the next ones use this one.
        _MODELS[key] = encoder
    return encoder


def warm_model(path: Path, export_dir: Path | None = None) -> None:
    """Load the model at `path` and encode once.

    The first forward pass after loading is slower than the others (the runtime sets up its
    kernels and buffers); at start-up, not in someone's first question.
    """
    load_model(path, export_dir).encode(["connection refused on port 5432"])


class SentenceTransformerEmbedder:
    """The local model (bundled all-MiniLM-L6-v2 by default), encoding off the event loop.

    It runs from the model's ONNX copy when `export_dir` holds one, else on torch. With a `gate`,
    vectors wait until the process's warm-up has loaded the model (see rag.embeddings.gate).
    """

    def __init__(
        self,
        model_path: Path,
        *,
        export_dir: Path | None = None,
        batch_size: int = BATCH_SIZE,
        gate: ModelGate | None = None,
    ) -> None:
        self._path = model_path
        self._export_dir = export_dir
        self._batch_size = batch_size
        self._gate = gate
        self._coalescers: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _Coalescer] = (
            weakref.WeakKeyDictionary()
        )

    @property
    def dimension(self) -> int:
        """Read from the model's config when possible, so the store opens without loading it."""
        configured = _configured_dimension(self._path)
        if configured is not None:
            return configured
        return load_model(self._path, self._export_dir).dimension

    @property
    def ready(self) -> bool:
        """Whether vectors are computed without waiting for the model to load."""
        return self._gate is None or self._gate.is_open

    def encode(self, texts: Sequence[str]) -> Vectors:
        """Vectors for one batch, computed on this thread (blocking)."""
        return load_model(self._path, self._export_dir).encode(texts)

    async def embed(
        self, texts: Sequence[str], *, on_batch: Callable[[int], None] | None = None
    ) -> Vectors:
        """Vectors in batches on a worker thread, so searches keep running meanwhile.

        A few texts (a search query) share one model call with the other small requests made
        while the model was busy: cases searching at the same time share forward passes, and a
        query asked by several searches of one turn is encoded once.
        """
        if self._gate is not None:
            await self._gate.wait()
        if 0 < len(texts) <= SMALL_REQUEST:
            vectors = await self._coalescer().embed(texts)
            if on_batch is not None:
                on_batch(len(texts))
            return vectors
        parts: list[Vectors] = []
        for first in range(0, len(texts), self._batch_size):
            batch = texts[first : first + self._batch_size]
            parts.append(await asyncio.to_thread(self.encode, batch))
            if on_batch is not None:
                on_batch(first + len(batch))
        if not parts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        return np.concatenate(parts)

    def _coalescer(self) -> _Coalescer:
        """One per event loop (a test session's embedder outlives each test's loop)."""
        loop = asyncio.get_running_loop()
        coalescer = self._coalescers.get(loop)
        if coalescer is None:
            coalescer = self._coalescers[loop] = _Coalescer(self.encode, self._batch_size)
        return coalescer


def waits_for_model(embedder: Embedder) -> bool:
    """Whether vectors from `embedder` would wait now for its model to finish loading."""
    return isinstance(embedder, SentenceTransformerEmbedder) and not embedder.ready


_Request = tuple[list[str], "asyncio.Future[Vectors]"]
"""Texts to embed, and where their caller waits for the vectors."""


class _Coalescer:
    """Small requests queue while the model works; the next model call takes all of them."""

    def __init__(self, encode: Callable[[Sequence[str]], Vectors], batch_size: int) -> None:
        self._encode = encode
        self._batch_size = batch_size
        self._waiting: list[_Request] = []
        self._draining: asyncio.Task[None] | None = None

    async def embed(self, texts: Sequence[str]) -> Vectors:
        future: asyncio.Future[Vectors] = asyncio.get_running_loop().create_future()
        self._waiting.append((list(texts), future))
        if self._draining is None or self._draining.done():
            self._draining = asyncio.create_task(self._drain(), name="fm-embed-queries")
        return await future

    async def _drain(self) -> None:
        while self._waiting:
            taken, unique = self._take()
            try:
                vectors = await asyncio.to_thread(self._encode, list(unique))
            except asyncio.CancelledError:
                for _, future in [*taken, *self._waiting]:
                    future.cancel()
                self._waiting.clear()
                raise
            except Exception as error:  # each caller gets the model's error, not a hang
                for _, future in _waiting_still(taken):
                    future.set_exception(error)
            else:
                for texts, future in _waiting_still(taken):
                    future.set_result(vectors[[unique[text] for text in texts]])

    def _take(self) -> tuple[list[_Request], dict[str, int]]:
        """The oldest requests, up to a batch of distinct texts (asked twice, encoded once)."""
        taken: list[_Request] = []
        unique: dict[str, int] = {}
        while self._waiting and len(unique) < self._batch_size:
            request = self._waiting.pop(0)
            taken.append(request)
            for text in request[0]:
                unique.setdefault(text, len(unique))
        return taken, unique


def _waiting_still(taken: list[_Request]) -> list[_Request]:
    """The requests whose callers still wait (one may have given up meanwhile)."""
    return [(texts, future) for texts, future in taken if not future.done()]


def _configured_dimension(path: Path) -> int | None:
    """hidden_size from config.json when the model has no extra dense layer changing it."""
    try:
        modules = json.loads((path / "modules.json").read_text(encoding="utf-8"))
        config = json.loads((path / "config.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if any("Dense" in str(module.get("type", "")) for module in modules):
        return None
    size = config.get("hidden_size")
    return size if isinstance(size, int) else None


class VectorCache:
    """Recently embedded texts (e.g. log templates), so a repeated template costs no model call."""

    def __init__(self, capacity: int = 50_000) -> None:
        self._capacity = capacity
        self._vectors: OrderedDict[str, Vectors] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, text: str) -> Vectors | None:
        """The cached vector for `text`, if any."""
        with self._lock:
            vector = self._vectors.get(text)
            if vector is not None:
                self._vectors.move_to_end(text)
            return vector

    def put(self, text: str, vector: Vectors) -> None:
        """Remember `vector` for `text`, forgetting the least recently used beyond capacity."""
        with self._lock:
            self._vectors[text] = vector
            self._vectors.move_to_end(text)
            while len(self._vectors) > self._capacity:
                self._vectors.popitem(last=False)


async def embed_with_cache(
    embedder: Embedder,
    texts: Sequence[str],
    cache: VectorCache,
    *,
    on_batch: Callable[[int, int], None] | None = None,
) -> Vectors:
    """Vectors for `texts`, asking the model only for those not already cached."""
    result = np.zeros((len(texts), embedder.dimension), dtype=np.float32)
    missing: list[int] = []
    for index, text in enumerate(texts):
        vector = cache.get(text)
        if vector is None:
            missing.append(index)
        else:
            result[index] = vector
    fresh = await embedder.embed(
        [texts[index] for index in missing],
        on_batch=(lambda done: on_batch(done, len(missing))) if on_batch else None,
    )
    for row, index in enumerate(missing):
        result[index] = fresh[row]
        cache.put(texts[index], fresh[row])
    return result
