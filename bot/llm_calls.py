"""Reading litellm's responses and errors into plain values the gateway can act on."""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from domain.llm import LLMCallOutcome

ReplyT = TypeVar("ReplyT", bound=BaseModel)
_FENCE = re.compile(r"^```(?:json)?\s*(.*?)\s*```$", re.S)


@dataclass
class Completion:
    """One completion's content and what it cost."""

    content: str
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    cost_usd: float | None = None
    latency_ms: int = 0


@dataclass
class Failure(Exception):
    """A failed attempt: how it is recorded, whether to retry, and how long to wait."""

    outcome: LLMCallOutcome
    message: str
    retryable: bool = False
    retry_after: float | None = None
    latency_ms: int = 0


def elapsed(started: float) -> int:
    """Milliseconds since ``started`` (a time.monotonic() reading)."""
    return int((time.monotonic() - started) * 1000)


def classify(litellm: Any, error: Exception, latency_ms: int) -> Failure:
    """Which failures are worth retrying, and how long the server asked us to wait."""
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
    return Failure(
        LLMCallOutcome.ERROR, f"provider error ({type(error).__name__})", False, None, latency_ms
    )


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
    usage = getattr(response, "usage", None)
    try:
        cost: float | None = float(litellm.completion_cost(completion_response=response))
    except Exception:  # unknown models have no price; cost stays unknown
        cost = None
    return Completion(
        content=response.choices[0].message.content or "",
        prompt_tokens=getattr(usage, "prompt_tokens", None),
        completion_tokens=getattr(usage, "completion_tokens", None),
        cost_usd=cost,
        latency_ms=latency_ms,
    )


def validate(schema: type[ReplyT], content: str) -> ReplyT:
    fenced = _FENCE.match(content.strip())
    return schema.model_validate_json(fenced.group(1) if fenced else content)


def brief(error: ValidationError) -> str:
    lines = [
        f"- {'.'.join(str(p) for p in e['loc']) or '(root)'}: {e['msg']}"
        for e in error.errors(include_url=False, include_input=False)[:20]
    ]
    return "\n".join(lines)
