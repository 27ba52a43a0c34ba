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


ImageType = Literal["image/png", "image/jpeg", "image/gif", "image/webp"]
"""The image formats every vision model takes (OpenAI, Anthropic, Gemini, Ollama alike)."""


class ImagePart(DomainModel):
    """An image sent with a message (a screenshot people shared), as base64."""

    name: str
    """The file's name, which the model cites (``screenshot.png (image)``)."""
    media_type: ImageType
    data: str = Field(min_length=1)
    """The image bytes in base64 (standard alphabet, padded)."""


class ChatMessage(DomainModel):
    """One message sent to the model."""

    role: Literal["system", "user", "assistant"]
    content: str
    images: tuple[ImagePart, ...] = ()
    """Images sent after the text (only to a model that takes images; the gateway checks)."""


class LLMCallOutcome(StrEnum):
    """How a call ended."""

    OK = "ok"
    REPAIRED = "repaired"
    INVALID = "invalid"
    TIMEOUT = "timeout"
    RATE_LIMITED = "rate_limited"
    UNAVAILABLE = "unavailable"
    REFUSED = "refused"
    """The provider answered and refused: a bad request, key, model name, filter or size."""
    SCHEMA_REFUSED = "schema_refused"
    """The provider refused the reply schema; the call was made again with the schema prompted."""
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
    """No reply came: no model is configured, the provider could not be reached, or it refused."""


class LLMTimeoutError(LLMUnavailableError):
    """The model did not answer within the configured timeout."""


class LLMRateLimitedError(LLMUnavailableError):
    """The provider kept rate-limiting the calls until the retries ran out."""


class RefusalCause(StrEnum):
    """Why a provider that answered refused a request."""

    BAD_REQUEST = "bad_request"
    AUTHENTICATION = "authentication"
    PERMISSION = "permission"
    MODEL_NOT_FOUND = "model_not_found"
    CONTENT_FILTER = "content_filter"
    CONTEXT_TOO_LONG = "context_too_long"
    DECLINED = "declined"
    """The model itself declined to answer (a safety refusal)."""


_REFUSALS: dict[RefusalCause, tuple[str, str]] = {
    RefusalCause.AUTHENTICATION: (
        "the model provider rejected the API key for {model} (401)",
        "check FM_LLM_API_KEY, then run `fm doctor --deep`",
    ),
    RefusalCause.PERMISSION: (
        "the model provider refused this key access to {model} (403)",
        "check that the key may use {setting}, then run `fm doctor --deep`",
    ),
    RefusalCause.MODEL_NOT_FOUND: (
        "the model provider does not know the model {model} (404)",
        "check {setting}, then run `fm doctor --deep`",
    ),
    RefusalCause.CONTENT_FILTER: (
        "the model provider's content filter blocked the request to {model}",
        "rephrase the message or leave out the flagged text, then try again",
    ),
    RefusalCause.CONTEXT_TOO_LONG: (
        "the conversation is too long for the context window of {model}",
        "share a shorter excerpt, or set {setting} to a model with a larger window",
    ),
    RefusalCause.DECLINED: (
        "the model {model} declined to answer",
        "rephrase the request, then try again",
    ),
    RefusalCause.BAD_REQUEST: (
        "the model provider refused the request to {model} as invalid (400)",
        "run `fm doctor --deep` to see why, and check {setting}",
    ),
}


class LLMRefusedError(LLMUnavailableError):
    """The provider answered and refused the request; ``cause`` says why."""

    def __init__(self, cause: RefusalCause, *, model: str, detail: str = "") -> None:
        suffix = f" ({detail})" if detail else ""
        super().__init__(f"{model} refused the request: {cause.value}{suffix}")
        self.cause = cause
        self.model = model
        self.detail = detail

    def explain(self, *, setting: str = "FM_LLM_MODEL") -> tuple[str, str]:
        """What happened and what to do, as two clauses for one plain sentence."""
        happened, todo = _REFUSALS[self.cause]
        return happened.format(model=self.model), todo.format(setting=setting)


class LLMReplyInvalidError(DomainError):
    """The model's reply did not match the schema, even after one repair attempt."""

    def __init__(self, message: str, *, cut_off: bool = False) -> None:
        super().__init__(message)
        self.cut_off = cut_off
        """The reply was cut off at the model's output limit (both times)."""


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
