"""One call to a model, as litellm makes it: transient failures retried, every call recorded.

Retries follow the one `RetryPolicy` (exponential backoff with full jitter, a server's
``Retry-After`` honoured); litellm's and the OpenAI client's own hidden retries are switched off.
A provider's refusal is raised at once, with its cause, and never retried.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from bot.llm.calls import Completion, Failure, classify, completion_from, elapsed
from bot.llm.config import GatewayConfig
from bot.llm.window import Message
from bot.observability.metrics import observe_model_call
from bot.observability.tracing import traced_model_call
from domain.llm import (
    LLMCallOutcome,
    LLMCallRecord,
    LLMCallRecorder,
    LLMRateLimitedError,
    LLMRefusedError,
    LLMTimeoutError,
    LLMUnavailableError,
    RefusalCause,
)
from domain.ports import Clock

logger = logging.getLogger(__name__)

_ERRORS: dict[LLMCallOutcome, type[LLMUnavailableError]] = {
    LLMCallOutcome.TIMEOUT: LLMTimeoutError,
    LLMCallOutcome.RATE_LIMITED: LLMRateLimitedError,
}


@dataclass(frozen=True)
class Call:
    """What one call is for: recorded with every attempt's outcome."""

    template: str
    template_hash: str
    case_id: str | None


class SchemaRefusedError(Exception):
    """The provider refused the reply schema (HTTP 400 naming it): try the next mode."""

    def __init__(self, detail: str) -> None:
        super().__init__(detail)
        self.detail = detail


class Caller:
    """Makes calls to any configured model through litellm, and records each one."""

    def __init__(
        self,
        config: GatewayConfig,
        *,
        litellm: Callable[[], Awaitable[Any]],
        recorder: LLMCallRecorder,
        clock: Clock | None,
        sleep: Callable[[float], Awaitable[None]],
        draw: Callable[[], float],
    ) -> None:
        self._config = config
        self._litellm = litellm
        self._recorder = recorder
        self._clock = clock
        self._sleep = sleep
        self._draw = draw
        self._retry = config.retry_policy()

    async def complete(
        self, model: str, messages: list[Message], options: dict[str, Any], call: Call
    ) -> Completion:
        """One answer: transient failures retried, refusals raised at once with their cause."""
        failed = 0
        while True:
            try:
                completion = await self._once(model, messages, options)
            except Failure as failure:
                failed += 1
                if failure.retryable and self._retry.allows_another(failed):
                    wait = self._retry.delay(
                        failed, retry_after=failure.retry_after, draw=self._draw
                    )
                    await self._sleep(wait)
                    continue
                await self._failed(model, call, failure)
            else:
                return await self._checked(model, call, completion)

    async def _failed(self, model: str, call: Call, failure: Failure) -> None:
        """Record a failed call and raise what the core understands."""
        empty = Completion("", latency_ms=failure.latency_ms)
        await self.record(model, call, empty, failure.outcome, failure.message)
        if failure.schema_refused:
            raise SchemaRefusedError(failure.message)
        if failure.cause is not None:
            logger.warning(
                "%s refused the request: %s", model, failure.message, extra={"model": model}
            )
            raise LLMRefusedError(failure.cause, model=model, detail=failure.message)
        raise _ERRORS.get(failure.outcome, LLMUnavailableError)(failure.message)

    async def _checked(self, model: str, call: Call, completion: Completion) -> Completion:
        """The completion, unless the model declined or a content filter stopped it."""
        cause = None
        if completion.refusal:
            cause = RefusalCause.DECLINED
        elif completion.finish_reason == "content_filter":
            cause = RefusalCause.CONTENT_FILTER
        if cause is None:
            return completion
        detail = (completion.refusal or "stopped by the content filter")[:300]
        await self.record(model, call, completion, LLMCallOutcome.REFUSED, detail)
        raise LLMRefusedError(cause, model=model, detail=detail)

    @traced_model_call
    async def _once(self, model: str, messages: list[Message], extra: dict[str, Any]) -> Completion:
        litellm = await self._litellm()
        config = self._config
        options: dict[str, Any] = {"num_retries": 0, "max_retries": 0, "timeout": config.timeout_s}
        options.update(extra)
        started = time.monotonic()
        try:
            async with asyncio.timeout(config.timeout_s):
                response = await litellm.acompletion(
                    model=model,
                    messages=messages,
                    api_base=config.api_base,
                    api_key=config.api_key,
                    **options,
                )
        except Exception as error:  # every provider error is classified, none escapes raw
            sent_format = "response_format" in extra
            raise classify(litellm, error, elapsed(started), sent_format=sent_format) from error
        return completion_from(litellm, response, elapsed(started))

    async def record(
        self,
        model: str,
        call: Call,
        completion: Completion,
        outcome: LLMCallOutcome,
        error: str | None = None,
    ) -> None:
        record = LLMCallRecord(
            case_id=call.case_id,
            model=model,
            template=call.template,
            template_hash=call.template_hash,
            latency_ms=completion.latency_ms,
            prompt_tokens=completion.prompt_tokens,
            completion_tokens=completion.completion_tokens,
            cost_usd=completion.cost_usd,
            outcome=outcome,
            error=error,
        )
        if self._clock is not None:
            record = record.model_copy(update={"at": self._clock.now()})
        observe_model_call(record)
        try:
            await self._recorder.record(record)
        except Exception:  # the record is bookkeeping: losing it must not lose the reply
            logger.warning("could not record an LLM call of %s", call.template, exc_info=True)
