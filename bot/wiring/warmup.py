"""Start-up warm-up: the heavy libraries load while the bot already answers Slack.

It starts once the bot listens. litellm (~3 s, ~300,000 objects) is loaded on a worker thread
first, every turn needs it; then the embedding model from its ONNX copy (~0.2 s), which a child
process makes meanwhile when the data directory has none, so torch (~7 s, holding the interpreter
lock for up to ~0.3 s at a time) never loads in the bot. Each marks its part of `Readiness` done,
and the model's gate opens when the model is loaded (or failed to: the first search says why).

Measured on 2 cores: a thread alone does not keep the event loop answering, because what runs in
it holds the interpreter lock. Most of the long holds were the garbage collector's full passes,
set off by the objects the imports create, each walking every object alive (~0.2-0.5 s). So the
collector is paused while each part loads, and what is alive then is frozen (`gc.freeze`) without
a last full pass (~0.5 s, to find the few thousand objects the imports left unreachable): left in
view, each later full collection would walk it all and stall every turn.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
from collections.abc import Callable, Coroutine, Iterator
from dataclasses import dataclass
from typing import Any, Protocol

from bot.wiring.readiness import EMBEDDING_MODEL, LLM, Readiness
from rag.embeddings.gate import ModelGate

logger = logging.getLogger(__name__)


class Loadable(Protocol):
    """An adapter whose library can be loaded ahead of its first use, off the event loop."""

    @property
    def enabled(self) -> bool: ...

    async def warm(self) -> None: ...


@dataclass(frozen=True)
class ModelWarmUp:
    """How the embedding model is made ready, and the gate its searches wait at meanwhile."""

    load: Callable[[], object]
    """Load the model and run it once (blocking: it runs on a worker thread)."""
    gate: ModelGate
    copy: Callable[[], Coroutine[Any, Any, None]] | None = None
    """Make the model's ONNX copy in a child process when there is none, before loading."""


def freeze_startup_objects() -> None:
    """Move everything alive now out of the garbage collector's sight (it lives as long as we)."""
    gc.freeze()


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """No automatic garbage collection inside (it is switched back on after, if it was on)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def parts(llm: Loadable | None, model: ModelWarmUp | None) -> list[str]:
    """What the warm-up of ``llm`` and ``model`` makes ready."""
    made = [LLM] if llm is not None and llm.enabled else []
    return [*made, EMBEDDING_MODEL] if model is not None else made


async def warm_up(
    llm: Loadable | None,
    model: ModelWarmUp | None,
    readiness: Readiness,
    *,
    freeze: Callable[[], None] = freeze_startup_objects,
) -> None:
    """Load the LLM library, then the embedding model (its copy made meanwhile); freeze each."""
    copying = _copy(model)
    try:
        await _load_llm(llm, readiness, freeze)
        await _load_model(model, copying, readiness, freeze)
    finally:
        if copying is not None and not copying.done():  # stopped during the warm-up
            copying.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await copying  # the child is stopped and its half-written file removed


def _copy(model: ModelWarmUp | None) -> asyncio.Task[None] | None:
    """Start making the model's copy in its child process, beside the LLM library's load."""
    if model is None or model.copy is None:
        return None
    return asyncio.create_task(model.copy(), name="fm-model-copy")


async def _load_llm(llm: Loadable | None, readiness: Readiness, freeze: Callable[[], None]) -> None:
    if llm is None or not llm.enabled:
        return
    try:
        with collector_paused():
            await llm.warm()
            freeze()
    except Exception:  # the first turn tries again and reports it in the thread
        logger.warning("the LLM library could not be loaded", exc_info=True)
    finally:
        readiness.done(LLM)


async def _load_model(
    model: ModelWarmUp | None,
    copying: asyncio.Task[None] | None,
    readiness: Readiness,
    freeze: Callable[[], None],
) -> None:
    if model is None:
        return
    try:
        if copying is not None:
            await copying
        with collector_paused():
            await asyncio.to_thread(model.load)
            freeze()
    except (OSError, RuntimeError, ValueError):
        logger.warning("the embedding model could not be loaded; run `fm doctor`", exc_info=True)
    finally:
        model.gate.open()
        readiness.done(EMBEDDING_MODEL)
