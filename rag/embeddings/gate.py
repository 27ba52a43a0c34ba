"""The gate a process's warm-up opens once its embedding model is loaded and has run once.

Until then, computing vectors waits here instead of loading the model itself: the bot's warm-up
decides how it loads (from the ONNX copy, made first in a child process when there is none), so
a search that comes early never pulls torch into the bot while Slack waits for an answer.
"""

from __future__ import annotations

import asyncio


class ModelGate:
    """Closed while the warm-up loads the model; open for good afterwards (loaded or not)."""

    def __init__(self) -> None:
        self._open = asyncio.Event()

    @property
    def is_open(self) -> bool:
        """Whether vectors are computed without waiting."""
        return self._open.is_set()

    def open(self) -> None:
        """Let every waiting and later request through."""
        self._open.set()

    async def wait(self) -> None:
        """Return once the gate is open."""
        await self._open.wait()
