"""The embedding model run by onnxruntime from its ONNX copy: no torch, loaded in well under 1 s."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from rag.embeddings.onnx_export import TextLimits

BATCH_SIZE = 32


class OnnxEncoder:
    """Tokenize, run the transformer, mean-pool and L2-normalise, as sentence-transformers does."""

    def __init__(self, session: Any, tokenizer: Any, limits: TextLimits) -> None:
        self._session = session
        self._tokenizer = tokenizer
        self._lowercase = limits.lowercase
        self._inputs = [item.name for item in session.get_inputs()]
        self.dimension = int(session.get_outputs()[0].shape[-1])

    @classmethod
    def open(cls, onnx_file: Path, tokenizer_file: Path, limits: TextLimits) -> OnnxEncoder:
        """Load the exported model and the model's own tokenizer.json."""
        import onnxruntime
        from tokenizers import Tokenizer

        options = onnxruntime.SessionOptions()
        # Threads that spin between calls take the cores the event loop and LanceDB need.
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        session = onnxruntime.InferenceSession(
            str(onnx_file), options, providers=["CPUExecutionProvider"]
        )
        tokenizer = Tokenizer.from_file(str(tokenizer_file))
        # tokenizer.json carries the hub's padding and truncation (128 here), not the model's.
        pad_id = tokenizer.padding["pad_id"] if tokenizer.padding else 0
        tokenizer.enable_padding(pad_id=pad_id)
        tokenizer.enable_truncation(max_length=limits.max_seq_length)
        return cls(session, tokenizer, limits)

    def encode(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        """Unit-length vectors for `texts`, in order."""
        result = np.zeros((len(texts), self.dimension), dtype=np.float32)
        # Similar lengths together, as sentence-transformers batches: less padding to compute.
        order = sorted(range(len(texts)), key=lambda index: len(texts[index]))
        for first in range(0, len(order), BATCH_SIZE):
            rows = order[first : first + BATCH_SIZE]
            result[rows] = self._batch([texts[row] for row in rows])
        return result

    def _batch(self, texts: list[str]) -> npt.NDArray[np.float32]:
        prepared = [text.lower() for text in texts] if self._lowercase else texts
        encodings = self._tokenizer.encode_batch(prepared)
        ids = np.array([item.ids for item in encodings], dtype=np.int64)
        mask = np.array([item.attention_mask for item in encodings], dtype=np.int64)
        feeds = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
        hidden = self._session.run(None, {name: feeds[name] for name in self._inputs})[0]
        return mean_pool(np.asarray(hidden, dtype=np.float32), mask)


def mean_pool(
    hidden: npt.NDArray[np.float32], mask: npt.NDArray[np.int64]
) -> npt.NDArray[np.float32]:
    """Average of the real (unpadded) tokens' vectors, scaled to unit length."""
    weights = mask[..., np.newaxis].astype(np.float32)
    summed = (hidden * weights).sum(axis=1)
    pooled = summed / np.clip(weights.sum(axis=1), 1e-9, None)
    norms = np.linalg.norm(pooled, axis=1, keepdims=True)
    return np.asarray(pooled / np.clip(norms, 1e-12, None), dtype=np.float32)
