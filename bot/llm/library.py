"""litellm as a library: imported off the event loop, warmed up ahead of the first call, closed.

Its import takes seconds, so the gateway imports it on first use on a worker thread (never at
import time); what its first completion would import, and its first reply object's set-up, are done
then too. At shutdown the HTTP clients it pooled are closed.
"""

from __future__ import annotations

import contextlib
import importlib
import sys
import warnings
from typing import Any

FIRST_CALL_IMPORTS = (
    "openai.resources.chat",
    "litellm.proxy.openai_files_endpoints.common_utils",
)
"""Modules the first completion would import (found by profiling the bot's first turn)."""
WARM_UP_PROMPT = [{"role": "user", "content": "connection refused on port 5432"}]


def import_litellm() -> Any:
    """litellm, imported (heavy: ~4 s) and set up to stay quiet and offline."""
    import litellm

    litellm.suppress_debug_info = True
    # Prompts are counted with the tiktoken encodings litellm bundles, for every model:
    # for Llama, Command R and older Claude names it would otherwise fetch a tokenizer
    # from the Hugging Face hub while a turn waits (nothing is downloaded at run time).
    # Fitting keeps a reserve for the reply, so an approximate count is enough.
    litellm.disable_hf_tokenizer_download = True
    return litellm


def import_first_call_modules(litellm: Any) -> None:
    """What litellm and the OpenAI client import only when the first request goes out (~0.4 s,
    most of it holding the event loop), and the first reply object's set-up."""
    for module in FIRST_CALL_IMPORTS:
        with contextlib.suppress(ImportError):  # internals: a later version may differ
            importlib.import_module(module)
    with warnings.catch_warnings():
        # The first reply object completes litellm's pydantic models, which warn about a
        # TypedDict they cannot protect: once, here, instead of in the first turn.
        warnings.simplefilter("ignore", UserWarning)
        litellm.ModelResponse()


async def close_litellm_sessions() -> None:
    """Close and forget litellm's cached HTTP clients, if litellm was imported at all.

    litellm keeps its clients (aiohttp sessions, httpx clients, OpenAI SDK clients) in a
    process-wide cache; left open, each is reported unclosed when the garbage collector finds it
    after its event loop is gone. The async ones are closed by litellm's own cleanup, the
    synchronous ones (some providers' lookups) here.
    """
    litellm = sys.modules.get("litellm")
    if litellm is None:
        return
    import httpx
    from litellm.llms.custom_httpx.async_client_cleanup import close_litellm_async_clients

    await close_litellm_async_clients()  # type: ignore[no-untyped-call]
    cache = litellm.in_memory_llm_clients_cache
    for held in list(getattr(cache, "cache_dict", {}).values()):
        inner = getattr(held, "_client", None) or getattr(held, "client", None)
        if isinstance(inner, httpx.Client):
            inner.close()
    cache.flush_cache()
