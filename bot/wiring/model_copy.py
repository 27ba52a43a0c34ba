"""The embedding model's ONNX copy: made by `fm kb` commands, or by the bot as it starts."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import sys
from pathlib import Path

from bot.settings import Settings
from rag.embeddings.backend import export_model
from rag.embeddings.embedder import reload_model
from rag.embeddings.model import resolve_model_path
from rag.embeddings.onnx_export import recorded_export

logger = logging.getLogger(__name__)
STOP_WAIT_S = 5.0


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


async def make_copy_in_background(model_path: Path, export_dir: Path) -> None:
    """Without a copy, make one in a low-priority child process, then run the model from it.

    The bot's warm-up waits for this before loading the model, so torch (which the export needs,
    ~7 s holding the interpreter lock in long stretches) is loaded only in the child.
    """
    if recorded_export(model_path, export_dir) is not None:
        return
    logger.info("making the embedding model's ONNX copy in a background process")
    command = [sys.executable, "-m", "rag.embeddings.export_main", str(model_path), str(export_dir)]
    command.append(str(os.getpid()))
    process = await asyncio.create_subprocess_exec(
        *command, stdin=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE
    )
    try:
        _, errors = await process.communicate()
    except asyncio.CancelledError:
        await _stop(process)
        raise
    if process.returncode != 0:
        reason = errors.decode(errors="replace").strip().splitlines()[-1:] or ["no message"]
        logger.warning("the ONNX copy of the embedding model was not made: %s", reason[0])
        return
    await asyncio.to_thread(reload_model, model_path, export_dir)
    logger.info("the embedding model now runs from its ONNX copy")


async def _stop(process: asyncio.subprocess.Process) -> None:
    """SIGTERM (the child removes its half-written file), then SIGKILL if it lingers."""
    with contextlib.suppress(ProcessLookupError):
        process.terminate()
    try:
        await asyncio.wait_for(process.communicate(), STOP_WAIT_S)
    except TimeoutError:
        with contextlib.suppress(ProcessLookupError):
            process.kill()
        await process.wait()
