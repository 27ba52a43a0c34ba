"""The LLM as the core sees it: a port for structured and free-text completions."""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum
from typing import Literal, Protocol, TypeVar

from pydantic import AwareDatetime, BaseModel, Field

from domain.base import DomainModel, utc_now
from domain.errors import DomainError

ReplyT = TypeVar("ReplyT", bound=BaseModel)


class ModelTier(StrEnum):
    """Which configured model serves a call."""

    MAIN = "main"
    """FM_LLM_MODEL: the investigation turns."""
    FAST = "fast"
    """FM_LLM_FAST_MODEL: chunk synthesis and other cheap calls."""
    JUDGE = "judge"
    """FM_LLM_JUDGE_MODEL: scoring."""


class ChatMessage(DomainModel):
    """One message sent to the model."""

    role: Literal["system", "user", "assistant"]
    content: str


class LLMCallOutcome(StrEnum):
    """How a call ended."""

    OK = "ok"
    REPAIRED = "repaired"
    INVALID = "invalid"
    TIMEOUT = "timeout"
    RATE_LIMITED = "rate_limited"
    UNAVAILABLE = "unavailable"
    ERROR = "error"


class LLMCallRecord(DomainModel):
    """Every call, recorded for its case: model, template, latency, tokens, cost, outcome."""

    case_id: str | None = None
    model: str
    template: str
    template_hash: str
    latency_ms: int = Field(ge=0)
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    cost_usd: float | None = None
    outcome: LLMCallOutcome
    error: str | None = None
    at: AwareDatetime = Field(default_factory=utc_now)


class LLMUnavailableError(DomainError):
    """No model is configured, or the provider could not be reached in time."""


class LLMTimeoutError(LLMUnavailableError):
    """The model did not answer within the configured timeout."""


class LLMRateLimitedError(LLMUnavailableError):
    """The provider kept rate-limiting the calls until the retries ran out."""


class LLMReplyInvalidError(DomainError):
    """The model's reply did not match the schema, even after one repair attempt."""


class LLMCallRecorder(Protocol):
    """Where every LLM call's record goes (a storage table in production)."""

    async def record(self, record: LLMCallRecord) -> None:
        """Keep one call's record."""
        ...


class MemoryCallRecorder:
    """Keeps the newest call records in memory (tests, and tools that run without a database)."""

    def __init__(self, *, limit: int = 1000) -> None:
        self._limit = limit
        self.records: list[LLMCallRecord] = []

    async def record(self, record: LLMCallRecord) -> None:
        """Append, dropping the oldest records beyond the limit."""
        self.records.append(record)
        del self.records[: max(0, len(self.records) - self._limit)]


class LLMPort(Protocol):
    """Structured and free-text completions; one adapter (litellm) implements it."""

    @property
    def enabled(self) -> bool:
        """False in no-LLM mode (no model configured)."""
        ...

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
        """A reply validated against ``schema`` (LLMReplyInvalidError, LLMUnavailableError)."""
        ...

    async def text(
        self,
        *,
        tier: ModelTier,
        messages: Sequence[ChatMessage],
        template: str,
        template_hash: str,
        case_id: str | None = None,
    ) -> str:
        """A free-text reply (LLMUnavailableError on failure)."""
        ...
