"""Reading litellm's responses and errors into plain values the gateway can act on."""

from __future__ import annotations

import contextlib
import json
import re
import time
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from bot.llm.schema import parse_reply, without_null_defaults
from domain.llm import LLMCallOutcome, RefusalCause

ReplyT = TypeVar("ReplyT", bound=BaseModel)
_PREFIX = re.compile(r"^(?:(?:litellm\.)?\w+(?:Error|Exception)\s*[:-]\s*)+")
_NAMES_SCHEMA = re.compile(r"response_format|json_schema|schema|output_format|tool|format", re.I)
DETAIL_CHARS = 300


@dataclass
class Completion:
    """One completion's content and what it cost."""

    content: str
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    cost_usd: float | None = None
    latency_ms: int = 0
    finish_reason: str | None = None
    """``length`` when the reply was cut off at the output limit."""
    refusal: str | None = None
    """The model's own refusal text, when it declined to answer (OpenAI's ``refusal``)."""

    @property
    def cut_off(self) -> bool:
        """The reply stopped at the output limit, so it is incomplete."""
        return self.finish_reason in {"length", "max_tokens"}


@dataclass
class Failure(Exception):
    """A failed attempt: how it is recorded, whether to retry, and how long to wait."""

    outcome: LLMCallOutcome
    message: str
    retryable: bool = False
    retry_after: float | None = None
    latency_ms: int = 0
    cause: RefusalCause | None = None
    """Set when the provider answered and refused (not retried: the same request fails again)."""

    @property
    def schema_refused(self) -> bool:
        """The provider refused the reply schema itself (a prompted call may still work)."""
        return self.outcome is LLMCallOutcome.SCHEMA_REFUSED


def elapsed(started: float) -> int:
    """Milliseconds since ``started`` (a time.monotonic() reading)."""
    return int((time.monotonic() - started) * 1000)


def classify(litellm: Any, error: Exception, latency_ms: int, *, sent_format: bool) -> Failure:
    """Which failures are worth retrying, which are refusals, and how long to wait."""
    if isinstance(error, TimeoutError | litellm.Timeout):
        return Failure(
            LLMCallOutcome.TIMEOUT, "the model did not answer in time", False, None, latency_ms
        )
    if isinstance(error, litellm.RateLimitError):
        return Failure(
            LLMCallOutcome.RATE_LIMITED, "rate-limited", True, retry_after(error), latency_ms
        )
    status = getattr(error, "status_code", None)
    if isinstance(error, litellm.APIConnectionError) or (isinstance(status, int) and status >= 500):
        message = f"provider unavailable ({type(error).__name__})"
        return Failure(LLMCallOutcome.UNAVAILABLE, message, True, None, latency_ms)
    cause = refusal_cause(litellm, error)
    if cause is not None:
        detail = provider_message(error)
        refused = cause is RefusalCause.BAD_REQUEST and sent_format and _NAMES_SCHEMA.search(detail)
        outcome = LLMCallOutcome.SCHEMA_REFUSED if refused else LLMCallOutcome.REFUSED
        return Failure(outcome, detail, latency_ms=latency_ms, cause=cause)
    return Failure(
        LLMCallOutcome.ERROR, f"provider error ({type(error).__name__})", False, None, latency_ms
    )


def refusal_cause(litellm: Any, error: Exception) -> RefusalCause | None:
    """Why a provider that answered refused, or None if it did not answer with a refusal."""
    if isinstance(error, litellm.ContextWindowExceededError):
        return RefusalCause.CONTEXT_TOO_LONG
    if isinstance(error, litellm.ContentPolicyViolationError):
        return RefusalCause.CONTENT_FILTER
    status = getattr(error, "status_code", None)
    if status in _BY_STATUS and status != 400:  # litellm files some 401/403s as bad requests
        return _BY_STATUS[status]
    by_type = (
        (litellm.AuthenticationError, RefusalCause.AUTHENTICATION),
        (litellm.PermissionDeniedError, RefusalCause.PERMISSION),
        (litellm.NotFoundError, RefusalCause.MODEL_NOT_FOUND),
        (litellm.BadRequestError, RefusalCause.BAD_REQUEST),
        (litellm.UnprocessableEntityError, RefusalCause.BAD_REQUEST),
    )
    for kind, cause in by_type:
        if isinstance(error, kind):
            return cause
    return _BY_STATUS.get(status) if isinstance(status, int) else None


_BY_STATUS = {
    400: RefusalCause.BAD_REQUEST,
    401: RefusalCause.AUTHENTICATION,
    403: RefusalCause.PERMISSION,
    404: RefusalCause.MODEL_NOT_FOUND,
    422: RefusalCause.BAD_REQUEST,
}


def provider_message(error: Exception) -> str:
    """The provider's own words, without litellm's prefixes or the JSON around them, cut short."""
    text = _PREFIX.sub("", " ".join(str(getattr(error, "message", None) or error).split()))
    start = text.find("{")
    if start >= 0:
        with contextlib.suppress(ValueError):
            body, _ = json.JSONDecoder().raw_decode(text, start)
            words = _error_words(body)
            if words:
                text = f"{text[:start]}{words}".strip()
    return text[:DETAIL_CHARS]


def _error_words(body: Any) -> str | None:
    """``error.message`` (OpenAI, Anthropic), ``error`` (Ollama) or ``message`` of an error body."""
    if not isinstance(body, dict):
        return None
    inner = body.get("error", body)
    if isinstance(inner, str):
        return inner
    if isinstance(inner, dict) and isinstance(inner.get("message"), str):
        return str(inner["message"])
    return None


def retry_after(error: Exception) -> float | None:
    """Seconds from a Retry-After header (a number or an HTTP date), if the server sent one."""
    response = getattr(error, "response", None)
    for headers in (
        getattr(error, "litellm_response_headers", None),
        getattr(response, "headers", None),
    ):
        value = _header(headers, "retry-after")
        if value is None:
            continue
        try:
            return max(0.0, float(value))
        except ValueError:
            pass
        try:
            moment = parsedate_to_datetime(value)
        except (TypeError, ValueError):
            return None
        return max(0.0, moment.timestamp() - time.time())
    return None


def _header(headers: Any, name: str) -> str | None:
    if not headers:
        return None
    for key, value in dict(headers).items():
        if str(key).lower() == name:
            return str(value)
    return None


def completion_from(litellm: Any, response: Any, latency_ms: int) -> Completion:
    """The reply's text, why it stopped, and what it cost."""
    usage = getattr(response, "usage", None)
    choice = response.choices[0]
    try:
        cost: float | None = float(litellm.completion_cost(completion_response=response))
    except Exception:  # unknown models have no price; cost stays unknown
        cost = None
    return Completion(
        content=choice.message.content or "",
        prompt_tokens=getattr(usage, "prompt_tokens", None),
        completion_tokens=getattr(usage, "completion_tokens", None),
        cost_usd=cost,
        latency_ms=latency_ms,
        finish_reason=getattr(choice, "finish_reason", None),
        refusal=_refusal(choice.message),
    )


def _refusal(message: Any) -> str | None:
    """The model's own refusal, wherever litellm put it."""
    extra = getattr(message, "provider_specific_fields", None) or {}
    found = getattr(message, "refusal", None) or extra.get("refusal")
    return str(found) if found else None


def validate(schema: type[ReplyT], content: str) -> ReplyT:
    """The reply as ``schema``: JSON found in it, nulls for defaulted fields read as defaults."""
    try:
        value = parse_reply(content)
    except ValueError as error:
        raise ValidationError.from_exception_data(
            schema.__name__,
            [
                {
                    "type": "json_invalid",
                    "loc": (),
                    "input": content[:200],
                    "ctx": {"error": str(error)},
                }
            ],
        ) from None
    return schema.model_validate(without_null_defaults(value, schema))


def brief(error: ValidationError) -> str:
    lines = [
        f"- {'.'.join(str(p) for p in e['loc']) or '(root)'}: {e['msg']}"
        for e in error.errors(include_url=False, include_input=False)[:20]
    ]
    return "\n".join(lines)
