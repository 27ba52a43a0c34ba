"""The embedding model run by sentence-transformers on torch: always works, ~10 s to load."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

if TYPE_CHECKING:
    from sentence_transformers import SentenceTransformer

logger = logging.getLogger(__name__)

BATCH_SIZE = 32
_LOCK = threading.Lock()
# One model per directory for the whole process: loading costs ~10 s and ~600 MB.
_MODELS: dict[str, TorchEncoder] = {}


class TorchEncoder:
    """A loaded sentence-transformers model; `model` is what the ONNX export is made from."""

    def __init__(self, model: SentenceTransformer) -> None:
        self.model = model
        dimension = model.get_embedding_dimension()
        self.dimension = int(dimension) if dimension else 0

    def encode(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        """Unit-length vectors for `texts`, in order."""
        vectors = self.model.encode(
            list(texts),
            batch_size=BATCH_SIZE,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        )
        return np.asarray(vectors, dtype=np.float32)


def torch_encoder(path: Path) -> TorchEncoder:
    """The sentence-transformers model at `path`, loaded on first use and then shared."""
    key = str(path)
    with _LOCK:
        if key not in _MODELS:
            _MODELS[key] = TorchEncoder(_load(key))
        return _MODELS[key]


def _load(key: str) -> SentenceTransformer:
    from sentence_transformers import SentenceTransformer
    from transformers.utils import logging as transformers_logging

    # Progress bars and "sequence longer than 256 tokens" notices (encode truncates, as
    # intended) are noise on a bot's and the CLI's stderr.
    disable_progress_bar: Callable[[], None] = transformers_logging.disable_progress_bar
    quiet: Callable[[], None] = transformers_logging.set_verbosity_error
    disable_progress_bar()
    quiet()
    logger.info("loading embedding model", extra={"model_path": key})
    return SentenceTransformer(key, device="cpu", local_files_only=True)
