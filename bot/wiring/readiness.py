"""Ready for turns: what the warm-up still loads, for `GET /readyz` and the start-up log.

Healthy (`/healthz`) means Slack is answered and work is recorded; ready means turns also run at
full speed, with nothing left to load. A bot is healthy from its first second and ready once its
warm-up is done, whether each part loaded or failed (a failure is logged, and the turn that
needs the part says so in its thread).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterable

logger = logging.getLogger(__name__)

LLM = "llm"
EMBEDDING_MODEL = "embedding_model"


class Readiness:
    """The warm-up's parts and whether each is done; ready when none is left."""

    def __init__(self, parts: Iterable[str] = ()) -> None:
        self._started = time.monotonic()
        self._done: dict[str, float | None] = dict.fromkeys(parts)

    @property
    def ready(self) -> bool:
        """Whether every part is done."""
        return all(at is not None for at in self._done.values())

    def done(self, part: str) -> None:
        """Mark ``part`` done (loaded, or given up on); log once everything is."""
        if part not in self._done or self._done[part] is not None:
            return
        after = self._done[part] = time.monotonic() - self._started
        if self.ready:
            logger.info("ready for turns", extra={"warm_up_s": round(after, 2)})

    def report(self) -> dict[str, str]:
        """Each part: ``ready`` or ``loading``."""
        return {part: "loading" if at is None else "ready" for part, at in self._done.items()}
