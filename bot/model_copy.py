"""The embedding model's ONNX copy, made by the `fm kb` commands when it is missing."""

from __future__ import annotations

import sys

from bot.settings import Settings
from rag.embedding_backend import export_model
from rag.embedding_model import resolve_model_path
from rag.onnx_export import recorded_export


def save_model_copy(settings: Settings, command: str) -> None:
    """Make the copy once (~15 s, saying so), so later commands start without loading torch."""
    try:
        path = resolve_model_path(settings.embedding_model)
    except FileNotFoundError:
        return  # the command has already said what is wrong with the model
    folder = settings.embedding_export_dir
    if recorded_export(path, folder) is not None:
        return
    print(
        f"{command}: saving an ONNX copy of the embedding model in {folder}, once (~15 s):"
        " later commands and bot starts load it in under a second instead of loading torch.",
        file=sys.stderr,
    )
    # Failures are logged as warnings; the command's own result stands either way.
    export_model(path, folder)
