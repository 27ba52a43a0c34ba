"""Which runtime runs the embedding model: its ONNX copy when ready, else torch (the one place).

Loading torch and sentence-transformers costs ~7-10 s and ~600 MB; onnxruntime with the ONNX copy
loads in under a second and gives the same vectors. The first process that loads the model
without a ready copy (`fm kb ingest`, `fm kb search`, `fm run`'s warm-up) uses torch and makes
the copy in `export_dir` for every later one; without an `export_dir`, torch it is.
"""

from __future__ import annotations

import contextlib
import logging
import time
from pathlib import Path

from rag.onnx_encoder import OnnxEncoder
from rag.onnx_export import (
    TOKENIZER_FILE,
    Export,
    export_folder,
    forget_export,
    make_export,
    read_export,
    record,
)
from rag.torch_encoder import TorchEncoder, torch_encoder

logger = logging.getLogger(__name__)


def load_encoder(model_path: Path, export_dir: Path | None) -> OnnxEncoder | TorchEncoder:
    """The model at `model_path`, from its ONNX copy in `export_dir` when one is ready."""
    if export_dir is None:
        return torch_encoder(model_path)
    try:
        folder = export_folder(model_path, export_dir)
    except OSError:
        return torch_encoder(model_path)
    made = read_export(folder)
    if made is not None and made.limits is not None:
        copy = _open(made, model_path)
        if copy is not None:
            return copy
        made = None
    encoder = torch_encoder(model_path)
    if made is None:
        _export(encoder, model_path, folder)
    return encoder


def _open(made: Export, model_path: Path) -> OnnxEncoder | None:
    assert made.limits is not None
    try:
        return OnnxEncoder.open(made.onnx_file, model_path / TOKENIZER_FILE, made.limits)
    except Exception:  # onnxruntime raises its own types for a damaged file; torch still works
        logger.warning(
            "the ONNX copy of the embedding model in %s does not load; it is made again",
            made.folder,
            exc_info=True,
        )
        forget_export(made.folder)
        return None


def _export(encoder: TorchEncoder, model_path: Path, folder: Path) -> None:
    logger.info(
        "saving an ONNX copy of the embedding model in %s, once (~10-20 s): later commands"
        " and starts load it in under a second instead of loading torch",
        folder,
    )
    started = time.monotonic()
    try:
        made = make_export(encoder.model, model_path, folder)
    except OSError as exc:
        logger.warning("cannot save the ONNX copy of the embedding model in %s: %s", folder, exc)
        return
    except Exception as exc:  # tracing fails in many ways on unusual models; torch still works
        logger.warning("the embedding model could not be exported to ONNX", exc_info=True)
        _give_up(Export(folder, unsupported=f"exporting it failed ({exc!r})"), model_path)
        return
    if made.unsupported:
        logger.warning("the embedding model stays on torch: %s", made.unsupported)
    else:
        logger.info("ONNX copy saved in %.1f s", time.monotonic() - started)


def _give_up(export: Export, model_path: Path) -> None:
    # Recorded, so each later command does not spend ~10 s failing the same way.
    with contextlib.suppress(OSError):
        record(export, model_path)
