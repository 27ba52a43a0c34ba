"""Fitting a prompt into the model's context window by token count (litellm's counter).

The first message (system prompt with the case state) and the last one (the newest input) are kept;
messages between them (older conversation, then quoted evidence, least decisive first) are dropped
oldest first, and the newest input then says how many were left out. If that is not enough, the
newest input is shortened in its middle, keeping its start and end.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import Any

from domain.llm import ImagePart

logger = logging.getLogger(__name__)

TRIM_MARK = "\n…[trimmed to fit the model's context window]…\n"
DROPPED_NOTE = (
    "\nSystem note: {count} earlier message(s) (older conversation, then the least decisive "
    "quoted evidence) were left out to fit the model's context window."
)
DROPPED_NOTE_TOKENS = 40
"""More than the note about dropped messages takes in any tokenizer."""
MIN_KEEP_CHARS = 200
MESSAGE_OVERHEAD_TOKENS = 16
"""More than any tokenizer adds per message (role, separators, start and end markers)."""

Message = dict[str, Any]
"""``role`` and ``content``: text while fitting; text and image parts once images are attached."""
TokenCounter = Callable[[list[Message]], int]
"""Tokens the messages take as sent (litellm's ``token_counter``)."""


ASKS_THE_SERVER = frozenset({"ollama", "ollama_chat"})
"""Providers whose model details litellm fetches from the model server, synchronously."""


def context_window(litellm: Any, model: str, default: int, api_base: str | None = None) -> int:
    """The model's input window; unknown models (litellm raises) get the conservative default.

    For a provider whose details litellm asks the model server for (Ollama), the answer is then
    pinned in litellm's model table: litellm looks the model up again after every completion, to
    log its cost, and that lookup would otherwise be a blocking HTTP request on the event loop.
    """
    try:
        info = litellm.get_model_info(model, api_base=api_base)
    except Exception:  # litellm raises several types for unmapped models
        info = {}
    found = info.get("max_input_tokens") or info.get("max_tokens")
    window = int(found) if found else default
    provider = str(info.get("litellm_provider") or "")
    if provider in ASKS_THE_SERVER or model.split("/", 1)[0] in ASKS_THE_SERVER:
        _pin(litellm, model, window)
    return window


def _pin(litellm: Any, model: str, window: int) -> None:
    provider, _, name = model.partition("/")
    entry = {
        "max_input_tokens": window,
        "max_tokens": window,
        "input_cost_per_token": 0.0,
        "output_cost_per_token": 0.0,
        "litellm_provider": provider,
        "mode": "chat",
        "supports_response_schema": True,  # Ollama's format takes a JSON schema
    }
    litellm.register_model({model: entry, name: entry})


def fit_messages(messages: Sequence[Message], *, budget: int, count: TokenCounter) -> list[Message]:
    """Messages that fit ``budget`` tokens, keeping the first and the last.

    Each message is counted once, alone: the sum over-counts what they take together by a few
    tokens each (the counter's reply priming), which errs on the safe side, and dropping one of
    hundreds of excerpts does not run the tokenizer over the whole prompt again.
    """
    fitted = [dict(m) for m in messages]
    if len(fitted) < 2 or most_tokens(fitted) <= budget:
        return fitted
    sizes = [count([m]) for m in fitted]
    total = sum(sizes)
    if total <= budget:
        return fitted
    # What is dropped is said in the newest input: room is kept for the sentence.
    budget = max(budget - DROPPED_NOTE_TOKENS, 0) if len(fitted) > 2 else budget
    keep = 1  # index of the oldest message between the first and the last still kept
    while keep < len(fitted) - 1 and total > budget:
        total -= sizes[keep]
        keep += 1
    fitted = fitted[:1] + fitted[keep:]
    if keep > 1:
        last = fitted[-1]
        fitted[-1] = {**last, "content": last["content"] + DROPPED_NOTE.format(count=keep - 1)}
    for _ in range(4):
        excess = total - budget
        if excess <= 0:
            return fitted
        fitted[-1] = _shorten(fitted[-1], excess)
        shortened = count(fitted[-1:])
        total += shortened - sizes[-1]
        sizes[-1] = shortened
    if total > budget:
        logger.warning("prompt still exceeds the context window", extra={"budget": budget})
    return fitted


def most_tokens(messages: Sequence[Message]) -> int:
    """More tokens than ``messages`` can take: a token is at least one byte of its text.

    Prompts usually fit many times over, and this costs nothing, where counting costs a
    tokenizer pass over the whole prompt.
    """
    return sum(
        len(m["content"].encode()) + len(m["role"]) + MESSAGE_OVERHEAD_TOKENS for m in messages
    )


def _shorten(message: Message, excess_tokens: int) -> Message:
    content = message["content"]
    # Roughly four characters a token; cut a little more than needed so one pass usually does.
    keep = max(MIN_KEEP_CHARS, len(content) - excess_tokens * 5 - len(TRIM_MARK))
    if keep >= len(content):
        return message
    half = keep // 2
    return {**message, "content": content[:half] + TRIM_MARK + content[len(content) - half :]}


def with_images(message: Message, images: Sequence[ImagePart]) -> Message:
    """The message as OpenAI content parts: its text, then each image as a data URL.

    Images are not counted against the window (only the text is fitted); the upload service
    keeps each one small (``bot/services/uploads.py``).
    """
    parts: list[dict[str, Any]] = [{"type": "text", "text": message["content"]}]
    parts += [
        {"type": "image_url", "image_url": {"url": f"data:{i.media_type};base64,{i.data}"}}
        for i in images
    ]
    return {**message, "content": parts}
