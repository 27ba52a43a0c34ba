"""Fakes for the retrieval adapter's ports: a scripted LLM and a hashing embedder."""

from __future__ import annotations

import asyncio
import hashlib
import re
from collections.abc import Callable, Sequence

import numpy as np

from domain.llm import ChatMessage, LLMUnavailableError, ModelTier, ReplyT
from rag.embeddings.embedder import Vectors

DIMENSION = 384


class FakeLLM:
    """Answers text calls from a script; records every call."""

    def __init__(self, replies: Sequence[str] = (), *, enabled: bool = True) -> None:
        self.replies = list(replies)
        self.calls: list[dict[str, object]] = []
        self._enabled = enabled

    @property
    def enabled(self) -> bool:
        """Whether a model is configured."""
        return self._enabled

    async def text(
        self,
        *,
        tier: ModelTier,
        messages: Sequence[ChatMessage],
        template: str,
        template_hash: str,
        case_id: str | None = None,
    ) -> str:
        """The next scripted reply, or LLMUnavailableError when the script is exhausted."""
        self.calls.append({"tier": tier, "messages": list(messages), "template": template})
        if not self.replies:
            raise LLMUnavailableError("no reply scripted")
        return self.replies.pop(0)

    async def structured(
        self,
        *,
        tier: ModelTier,
        messages: Sequence[ChatMessage],
        schema: type[ReplyT],
        template: str,
        template_hash: str,
        case_id: str | None = None,
    ) -> ReplyT:
        """Not used by the knowledge tools."""
        raise LLMUnavailableError("structured replies are not scripted")


class HashingEmbedder:
    """Bag-of-words vectors by hashing: fast, deterministic, similar texts are near."""

    def __init__(self, *, gate: asyncio.Event | None = None, fail_after: int | None = None) -> None:
        self.seen: list[str] = []
        self._gate = gate
        self._fail_after = fail_after

    @property
    def dimension(self) -> int:
        """Same size as the real model's vectors."""
        return DIMENSION

    async def embed(
        self, texts: Sequence[str], *, on_batch: Callable[[int], None] | None = None
    ) -> Vectors:
        """Vectors for `texts`; waits for the gate first and fails on request."""
        if self._gate is not None and len(texts) > 1:  # queries (one text) pass the gate
            await self._gate.wait()
        if self._fail_after is not None and len(self.seen) + len(texts) > self._fail_after:
            raise RuntimeError("embedding failed")
        self.seen.extend(texts)
        vectors = np.stack([hashed(text) for text in texts]) if texts else np.zeros((0, DIMENSION))
        if on_batch is not None:
            on_batch(len(texts))
        return vectors.astype(np.float32)


def hashed(text: str) -> Vectors:
    """A unit vector counting hashed lower-case words."""
    vector = np.zeros(DIMENSION, dtype=np.float32)
    for word in re.findall(r"[a-z0-9]+", text.lower()):
        digest = hashlib.blake2b(word.encode(), digest_size=4).digest()
        vector[int.from_bytes(digest, "little") % DIMENSION] += 1.0
    norm = float(np.linalg.norm(vector))
    return vector / norm if norm else vector + 1.0 / np.sqrt(DIMENSION)
