"""Which runtime runs the embedding model: its ONNX copy when ready, else torch (the one place).

Loading torch and sentence-transformers costs ~7-10 s and ~600 MB; onnxruntime with the ONNX copy
loads in under a second and gives the same vectors. The copy is made once, from the model's own
weights, by `export_model` (`fm kb ingest` and `fm kb search` call it); until it exists, and for
models it cannot represent, torch runs the model.
"""

from __future__ import annotations

import contextlib
import logging
import time
from pathlib import Path

from rag.embeddings.onnx_encoder import OnnxEncoder
from rag.embeddings.onnx_export import (
    TOKENIZER_FILE,
    Export,
    export_folder,
    forget_export,
    make_export,
    record,
    recorded_export,
)
from rag.embeddings.torch_encoder import TorchEncoder, torch_encoder

logger = logging.getLogger(__name__)


def load_encoder(model_path: Path, export_dir: Path | None) -> OnnxEncoder | TorchEncoder:
    """The model at `model_path`, from its ONNX copy in `export_dir` when one is ready."""
    made = recorded_export(model_path, export_dir)
    if made is not None and made.limits is not None:
        copy = _open(made, model_path)
        if copy is not None:
            return copy
    return torch_encoder(model_path)


def export_model(model_path: Path, export_dir: Path) -> Export | None:
    """Make the ONNX copy unless there is one; None when it could not be saved (logged)."""
    made = recorded_export(model_path, export_dir)
    if made is not None:
        return made
    folder = export_folder(model_path, export_dir)
    started = time.monotonic()
    try:
        # Before torch loads (~10 s): a place the copy cannot be saved in fails at once.
        folder.mkdir(parents=True, exist_ok=True)
        made = make_export(torch_encoder(model_path).model, model_path, folder)
    except OSError as exc:
        logger.warning("cannot save the ONNX copy of the embedding model in %s: %s", folder, exc)
        return None
    except Exception as exc:  # tracing fails in many ways on unusual models; torch still works
        logger.warning("the embedding model could not be exported to ONNX", exc_info=True)
        return _give_up(Export(folder, unsupported=f"exporting it failed ({exc!r})"), model_path)
    if made.unsupported:
        logger.warning("the embedding model stays on torch: %s", made.unsupported)
    else:
        logger.info("ONNX copy of the embedding model saved in %.1f s", time.monotonic() - started)
    return made


def _open(made: Export, model_path: Path) -> OnnxEncoder | None:
    assert made.limits is not None
    try:
        return OnnxEncoder.open(made.onnx_file, model_path / TOKENIZER_FILE, made.limits)
    except Exception:  # onnxruntime raises its own types for a damaged file; torch still works
        logger.warning(
            "the ONNX copy of the embedding model in %s does not load; it will be made again",
            made.folder,
            exc_info=True,
        )
        forget_export(made.folder)
        return None


def _give_up(export: Export, model_path: Path) -> Export | None:
    # Recorded, so each later command does not spend ~10 s failing the same way.
    with contextlib.suppress(OSError):
        return record(export, model_path)
    return None
