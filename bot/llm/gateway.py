"""The LLM gateway: litellm behind the domain's LLMPort.

Structured replies are asked for in the mode each model supports (`bot.llm.modes`: strict schema,
tool call or prompted JSON, stepping down once when a provider refuses) with a schema every provider
accepts (`bot.llm.schema`), and validated here against the pydantic model (litellm does not); an
invalid reply gets one repair attempt that shows the model its errors. A provider that answers
with a refusal (bad request, key, model name, content filter, context size) raises
``LLMRefusedError`` naming the cause; it is not retried.
Retries are our own bounded loop (exponential backoff with jitter, ``Retry-After`` honoured), so
litellm's and the OpenAI client's hidden retries are switched off. litellm is imported on first
use, never at import time; ``LITELLM_LOCAL_MODEL_COST_MAP=True`` must already be set (the Makefile
exports it).
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import logging
import random
import time
import warnings
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from bot.llm.calls import Completion, Failure, brief, classify, completion_from, elapsed, validate
from bot.llm.modes import Mode, ModeBook, request_options, with_schema_prompt
from bot.llm.probe import PING, DoctorPing, Probe
from bot.llm.schema import parse_reply
from bot.llm.window import Message, context_window, fit_messages
from bot.settings import Settings
from domain.llm import (
    ChatMessage,
    LLMCallOutcome,
    LLMCallRecord,
    LLMCallRecorder,
    LLMRateLimitedError,
    LLMRefusedError,
    LLMReplyInvalidError,
    LLMTimeoutError,
    LLMUnavailableError,
    ModelTier,
    RefusalCause,
)
from domain.ports import Clock

logger = logging.getLogger(__name__)

FIRST_CALL_IMPORTS = (
    "openai.resources.chat",
    "litellm.proxy.openai_files_endpoints.common_utils",
)
"""Modules the first completion would import (found by profiling the bot's first turn)."""
WARM_UP_PROMPT = [{"role": "user", "content": "connection refused on port 5432"}]

ReplyT = TypeVar("ReplyT", bound=BaseModel)
T = TypeVar("T")

REPAIR_PROMPT = (
    "Your previous reply did not match the required JSON schema. Errors:\n{errors}\n"
    "Reply again with only one JSON object that matches the schema exactly."
)
CUT_OFF_PROMPT = (
    "Your previous reply was cut off at the output limit, so it is not valid JSON. Reply again "
    "with the same JSON object, shorter: keep agent_response brief and leave out optional details."
)
_ERRORS: dict[LLMCallOutcome, type[LLMUnavailableError]] = {
    LLMCallOutcome.TIMEOUT: LLMTimeoutError,
    LLMCallOutcome.RATE_LIMITED: LLMRateLimitedError,
}


@dataclass(frozen=True)
class GatewayConfig:
    """How to reach the models (built by the composition root from settings)."""

    model: str | None
    fast_model: str | None = None
    judge_model: str | None = None
    api_base: str | None = None
    api_key: str | None = None
    timeout_s: float = 60.0
    max_retries: int = 3
    backoff_base_s: float = 0.5
    backoff_max_s: float = 30.0
    fallback_models: tuple[str, ...] = ()
    default_context_window: int = 8192
    """For models litellm does not know: conservative, since we cannot tell."""
    output_reserve_tokens: int = 2048


def gateway_config(settings: Settings) -> GatewayConfig:
    """The gateway's settings, as `fm run` builds them."""
    key = settings.llm_api_key.get_secret_value() if settings.llm_api_key else None
    return GatewayConfig(
        model=settings.llm_model,
        fast_model=settings.fast_model,
        judge_model=settings.judge_model,
        api_base=settings.llm_api_base,
        api_key=key,
        timeout_s=settings.llm_timeout_s,
        fallback_models=settings.fallback_models,
    )


@dataclass(frozen=True)
class _Call:
    """What one call is for: recorded with every attempt's outcome."""

    template: str
    template_hash: str
    case_id: str | None


class LiteLLMGateway:
    """LLMPort over litellm: any litellm model string, optional OpenAI-compatible ``api_base``."""

    def __init__(
        self,
        config: GatewayConfig,
        *,
        recorder: LLMCallRecorder,
        clock: Clock | None = None,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        jitter: Callable[[], float] = random.random,
    ) -> None:
        self._config = config
        self._recorder = recorder
        self._clock = clock
        self._sleep = sleep
        self._jitter = jitter
        self._module: Any = None
        self._windows: dict[str, int] = {}
        self._book: ModeBook | None = None

    @property
    def enabled(self) -> bool:
        """False in no-LLM mode (no model configured)."""
        return bool(self._config.model)

    def load(self) -> None:
        """Import litellm now (at start-up, on a worker thread), not during the first call.

        Also what litellm and the OpenAI client import only when the first request goes out
        (~0.4 s, most of it holding the event loop, with every case waiting).
        """
        litellm = self._litellm()
        for module in FIRST_CALL_IMPORTS:
            with contextlib.suppress(ImportError):  # internals: a later version may differ
                importlib.import_module(module)
        with warnings.catch_warnings():
            # The first reply object completes litellm's pydantic models, which warn about a
            # TypedDict they cannot protect: once, here, instead of in the first turn.
            warnings.simplefilter("ignore", UserWarning)
            litellm.ModelResponse()
        # Each model's window is looked up (for some providers, by asking the server) and the
        # first prompt too big to fit by its size alone is counted with a tokenizer that litellm
        # imports and builds then (~0.3 s with the event loop held): both now, not in a turn.
        config = self._config
        models = (config.model, config.fast_model, config.judge_model, *config.fallback_models)
        for model in dict.fromkeys(m for m in models if m):
            self._budget(model)
            litellm.token_counter(model=model, messages=WARM_UP_PROMPT)
            self.mode(model)

    def models(self) -> list[tuple[ModelTier, str]]:
        """Each configured tier and the model serving it (empty in no-LLM mode)."""
        config = self._config
        if not config.model:
            return []
        chosen = {ModelTier.FAST: config.fast_model, ModelTier.JUDGE: config.judge_model}
        return [(tier, chosen.get(tier) or config.model) for tier in ModelTier]

    def mode(self, model: str) -> Mode:
        """How ``model`` is asked for structured replies now (it may step down once refused)."""
        if self._book is None:
            self._book = ModeBook(self._litellm())
        return self._book.mode(model)

    async def probe(self, model: str) -> Probe:
        """One tiny structured call to ``model`` through the usual modes and step-downs."""
        started = time.monotonic()
        try:
            await self._structured(model, PING, DoctorPing, _Call("doctor", "", None))
        except (LLMUnavailableError, LLMReplyInvalidError) as error:
            return Probe(model, self.mode(model), elapsed(started), error)
        return Probe(model, self.mode(model), elapsed(started))

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
        """A reply validated against ``schema``; one repair attempt, then LLMReplyInvalidError."""
        call = _Call(template, template_hash, case_id)
        return await self._with_fallbacks(
            tier, lambda model: self._structured(model, messages, schema, call)
        )

    async def text(
        self,
        *,
        tier: ModelTier,
        messages: Sequence[ChatMessage],
        template: str,
        template_hash: str,
        case_id: str | None = None,
    ) -> str:
        """A free-text reply."""
        call = _Call(template, template_hash, case_id)
        return await self._with_fallbacks(tier, lambda model: self._text(model, messages, call))

    # ------------------------------------------------------------ models and fallbacks

    def _models(self, tier: ModelTier) -> list[str]:
        config = self._config
        if not config.model:
            raise LLMUnavailableError("no language model is configured")
        chosen = {ModelTier.FAST: config.fast_model, ModelTier.JUDGE: config.judge_model}.get(tier)
        return list(dict.fromkeys([chosen or config.model, *config.fallback_models]))

    async def _with_fallbacks(self, tier: ModelTier, run: Callable[[str], Awaitable[T]]) -> T:
        error: LLMUnavailableError | None = None
        for model in self._models(tier):
            try:
                return await run(model)
            except LLMUnavailableError as failure:
                logger.warning("model failed", extra={"model": model, "error": str(failure)})
                error = failure
        assert error is not None  # _models returns at least one model
        raise error

    async def _structured(
        self, model: str, messages: Sequence[ChatMessage], schema: type[ReplyT], call: _Call
    ) -> ReplyT:
        fitted = self._fit(model, messages)
        while True:
            mode = self.mode(model)
            try:
                return await self._ask(mode, model, fitted, schema, call)
            except _SchemaRefusedError as refused:
                assert self._book is not None
                if not self._book.step_down(model, mode, refused.detail):
                    raise LLMRefusedError(
                        RefusalCause.BAD_REQUEST, model=model, detail=refused.detail
                    ) from None

    async def _ask(
        self, mode: Mode, model: str, fitted: list[Message], schema: type[ReplyT], call: _Call
    ) -> ReplyT:
        """One reply in ``mode``, with one repair attempt (afresh, in a lower mode, after prose)."""
        prompt = fitted if mode.sends_schema else with_schema_prompt(fitted, schema)
        first = await self._complete(model, prompt, request_options(mode, schema), call)
        try:
            reply = validate(schema, first.content)
        except ValidationError as error:
            await self._record(model, call, first, LLMCallOutcome.INVALID, brief(error))
            retry, mode = self._repair(mode, model, fitted, prompt, first, error, schema)
        else:
            await self._record(model, call, first, LLMCallOutcome.OK)
            return reply
        second = await self._complete(model, retry, request_options(mode, schema), call)
        try:
            reply = validate(schema, second.content)
        except ValidationError as error:
            await self._record(model, call, second, LLMCallOutcome.INVALID, brief(error))
            cut_off = first.cut_off and second.cut_off
            raise LLMReplyInvalidError(
                f"{model} replied invalid JSON twice", cut_off=cut_off
            ) from error
        await self._record(model, call, second, LLMCallOutcome.REPAIRED)
        return reply

    def _repair(
        self,
        mode: Mode,
        model: str,
        fitted: list[Message],
        prompt: list[Message],
        first: Completion,
        error: ValidationError,
        schema: type[BaseModel],
    ) -> tuple[list[Message], Mode]:
        """The second attempt's messages and mode.

        A model that answered prose despite a schema sent to its provider ignores that schema (an
        Ollama model without structured output): it steps down and is asked afresh with the schema
        in the prompt. Any other reply is shown its errors, or told it was cut off.
        """
        if mode.sends_schema and not _holds_json(first.content) and not first.cut_off:
            assert self._book is not None
            self._book.step_down(model, mode, "it answered prose despite the schema")
            lower = self.mode(model)
            return with_schema_prompt(fitted, schema), lower
        note = CUT_OFF_PROMPT if first.cut_off else REPAIR_PROMPT.format(errors=brief(error))
        retry = [
            *prompt,
            {"role": "assistant", "content": first.content},
            {"role": "user", "content": note},
        ]
        return retry, mode

    async def _text(self, model: str, messages: Sequence[ChatMessage], call: _Call) -> str:
        completion = await self._complete(model, self._fit(model, messages), {}, call)
        await self._record(model, call, completion, LLMCallOutcome.OK)
        return completion.content

    # ------------------------------------------------------------ one completion, with retries

    async def _complete(
        self, model: str, messages: list[Message], options: dict[str, Any], call: _Call
    ) -> Completion:
        """One answer: transient failures retried, refusals raised at once with their cause."""
        config = self._config
        for attempt in range(config.max_retries + 1):
            try:
                completion = await self._attempt(model, messages, options)
            except Failure as failure:
                if failure.retryable and attempt < config.max_retries:
                    await self._sleep(self._delay(attempt, failure.retry_after))
                    continue
                await self._failed(model, call, failure)
            else:
                return await self._checked(model, call, completion)
        raise AssertionError("unreachable: the loop returns or raises")

    async def _failed(self, model: str, call: _Call, failure: Failure) -> None:
        """Record a failed call and raise what the core understands."""
        empty = Completion("", latency_ms=failure.latency_ms)
        await self._record(model, call, empty, failure.outcome, failure.message)
        if failure.schema_refused:
            raise _SchemaRefusedError(failure.message)
        if failure.cause is not None:
            logger.warning(
                "%s refused the request: %s", model, failure.message, extra={"model": model}
            )
            raise LLMRefusedError(failure.cause, model=model, detail=failure.message)
        raise _ERRORS.get(failure.outcome, LLMUnavailableError)(failure.message)

    async def _checked(self, model: str, call: _Call, completion: Completion) -> Completion:
        """The completion, unless the model declined or a content filter stopped it."""
        cause = None
        if completion.refusal:
            cause = RefusalCause.DECLINED
        elif completion.finish_reason == "content_filter":
            cause = RefusalCause.CONTENT_FILTER
        if cause is None:
            return completion
        detail = (completion.refusal or "stopped by the content filter")[:300]
        await self._record(model, call, completion, LLMCallOutcome.REFUSED, detail)
        raise LLMRefusedError(cause, model=model, detail=detail)

    def _delay(self, attempt: int, retry_after: float | None) -> float:
        """Exponential backoff with full jitter; the server's Retry-After wins when given."""
        config = self._config
        if retry_after is not None:
            return min(retry_after, config.backoff_max_s)
        ceiling = min(config.backoff_max_s, config.backoff_base_s * (1 << attempt))
        return ceiling * self._jitter()

    async def _attempt(
        self, model: str, messages: list[Message], extra: dict[str, Any]
    ) -> Completion:
        litellm = self._litellm()
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

    # ------------------------------------------------------------ helpers

    def _litellm(self) -> Any:
        if self._module is None:
            import litellm  # heavy (~4 s): imported on first use only

            litellm.suppress_debug_info = True
            # Prompts are counted with the tiktoken encodings litellm bundles, for every model:
            # for Llama, Command R and older Claude names it would otherwise fetch a tokenizer
            # from the Hugging Face hub while a turn waits (nothing is downloaded at run time).
            # Fitting keeps a reserve for the reply, so an approximate count is enough.
            litellm.disable_hf_tokenizer_download = True
            self._module = litellm
        return self._module

    def _budget(self, model: str) -> int:
        """Tokens a prompt to ``model`` may take: its window less the reserve for the reply."""
        if model not in self._windows:
            config = self._config
            litellm = self._litellm()
            window = context_window(litellm, model, config.default_context_window, config.api_base)
            self._windows[model] = window - min(self._config.output_reserve_tokens, window // 4)
        return self._windows[model]

    def _fit(self, model: str, messages: Sequence[ChatMessage]) -> list[Message]:
        litellm = self._litellm()

        def count(batch: list[Message]) -> int:
            return int(litellm.token_counter(model=model, messages=batch))

        plain = [{"role": m.role, "content": m.content} for m in messages]
        return fit_messages(plain, budget=self._budget(model), count=count)

    async def _record(
        self,
        model: str,
        call: _Call,
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
        try:
            await self._recorder.record(record)
        except Exception:  # the record is bookkeeping: losing it must not lose the reply
            logger.warning("could not record an LLM call of %s", call.template, exc_info=True)


class _SchemaRefusedError(Exception):
    """The provider refused the reply schema (HTTP 400 naming it): try the next mode."""

    def __init__(self, detail: str) -> None:
        super().__init__(detail)
        self.detail = detail


def _holds_json(content: str) -> bool:
    try:
        parse_reply(content)
    except ValueError:
        return False
    return True
