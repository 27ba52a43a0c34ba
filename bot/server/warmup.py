"""Start-up warm-up: the heavy libraries are loaded once, then kept out of the collector's sight.

The embedding model (~1 s from its ONNX copy, ~10 s on torch) and litellm (~3 s, ~300,000
objects) load in the background while the bot already answers Slack, so the first turn does not
wait for them. Once they are loaded, everything start-up created is frozen (`gc.freeze`): left in
view, each full collection walks it all and stalls every case's turn for ~0.3 s, whenever it
happens to run.
"""

from __future__ import annotations

import asyncio
import gc
import logging
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, Protocol

logger = logging.getLogger(__name__)


class Loadable(Protocol):
    """An adapter whose library can be imported ahead of its first use."""

    @property
    def enabled(self) -> bool: ...

    def load(self) -> None: ...


def freeze_startup_objects() -> None:
    """Move everything alive now out of the garbage collector's sight (it lives as long as we)."""
    gc.collect()
    gc.freeze()


async def warm_up(
    model_path: Path,
    llm: Loadable | None,
    *,
    load_model: Callable[[Path], Any],
    freeze: Callable[[], None] = freeze_startup_objects,
    then: Callable[[], Awaitable[None]] | None = None,
) -> None:
    """Load the embedding model and the LLM library now, not during the first turn; then freeze.

    `then` runs last, once the bot is warm (making the model's ONNX copy when there is none).
    """
    try:
        await asyncio.to_thread(load_model, model_path)
    except (OSError, RuntimeError, ValueError):
        logger.warning("the embedding model could not be loaded; run `fm doctor`", exc_info=True)
    if llm is not None and llm.enabled:
        try:
            await asyncio.to_thread(llm.load)
        except Exception:  # the first turn tries again and reports it in the thread
            logger.warning("the LLM library could not be loaded", exc_info=True)
    freeze()
    if then is not None:
        await then()
