"""The LLM gateway: litellm behind the domain's LLMPort.

Structured replies are asked for in the mode each model supports (`bot.llm.modes`: strict schema,
tool call or prompted JSON, stepping down once when a provider refuses) with a schema every provider
accepts (`bot.llm.schema`), and validated here against the pydantic model (litellm does not); an
invalid reply gets one repair attempt that shows the model its errors (`bot.llm.repair`). A
provider that answers with a refusal (bad request, key, model name, content filter, context size)
raises ``LLMRefusedError`` naming the cause; it is not retried.
Retries are our own bounded loop (exponential backoff with jitter, ``Retry-After`` honoured), so
litellm's and the OpenAI client's hidden retries are switched off. litellm is imported on first
use on a worker thread (`bot.llm.library`), never at import time nor on the event loop (its import
takes seconds); ``LITELLM_LOCAL_MODEL_COST_MAP=True`` must already be set (the Makefile exports it).
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from bot.llm.budget import BudgetGate
from bot.llm.caller import Call, Caller, SchemaRefusedError
from bot.llm.calls import brief, elapsed, validate
from bot.llm.config import GatewayConfig
from bot.llm.library import (
    WARM_UP_PROMPT,
    close_litellm_sessions,
    import_first_call_modules,
    import_litellm,
)
from bot.llm.modes import Mode, ModeBook, request_options, with_schema_prompt
from bot.llm.probe import PING, DoctorPing, Probe
from bot.llm.repair import second_attempt
from bot.llm.window import Message, context_window, fit_messages, with_images
from domain.llm import (
    ChatMessage,
    LLMCallOutcome,
    LLMCallRecorder,
    LLMRefusedError,
    LLMReplyInvalidError,
    LLMUnavailableError,
    ModelTier,
    RefusalCause,
)
from domain.ports import Clock

logger = logging.getLogger(__name__)

ReplyT = TypeVar("ReplyT", bound=BaseModel)
T = TypeVar("T")


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
        gate: BudgetGate | None = None,
    ) -> None:
        self._config = config
        self._gate = gate
        self._module: Any = None
        self._warm = False
        self._loading: asyncio.Future[None] | None = None
        self._caller = Caller(
            config, litellm=self._loaded, recorder=recorder, clock=clock, sleep=sleep, draw=jitter
        )
        self._windows: dict[str, int] = {}
        self._counted: set[str] = set()
        self._vision: dict[str, bool] = {}
        """Models litellm was asked about: whether each takes images."""
        """Models whose first prompt was counted (their tokenizer is built)."""
        self._book: ModeBook | None = None

    @property
    def enabled(self) -> bool:
        """False in no-LLM mode (no model configured)."""
        return bool(self._config.model)

    def load(self) -> None:
        """Import litellm now (blocking: `warm` runs it on a worker thread), not in the first call.

        Also what litellm and the OpenAI client import only when the first request goes out
        (~0.4 s, most of it holding the event loop, with every case waiting).
        """
        litellm = self._litellm()
        import_first_call_modules(litellm)
        # Each model's window is looked up (for some providers, by asking the server) and the
        # first prompt too big to fit by its size alone is counted with a tokenizer that litellm
        # imports and builds then (~0.3 s with the event loop held): both now, not in a turn.
        config = self._config
        models = (config.model, config.fast_model, config.judge_model, *config.fallback_models)
        for model in dict.fromkeys(m for m in models if m):
            self._budget(model)
            litellm.token_counter(model=model, messages=WARM_UP_PROMPT)
            self._counted.add(model)
            self.mode(model)
        self._warm = True

    async def warm(self) -> None:
        """`load` on a worker thread, once; every caller waits for that same load.

        The warm-up starts it; a turn that comes meanwhile waits for all of it (not just the
        import, or its first call would import the rest on the event loop, racing the warm-up
        for the import lock), while the event loop goes on acknowledging Slack.
        """
        if self._warm:
            return
        loading = self._loading
        if (
            loading is None
            or loading.done()
            or loading.get_loop() is not asyncio.get_running_loop()
        ):
            loading = self._loading = asyncio.ensure_future(asyncio.to_thread(self.load))
        # Shielded: a turn given up on must not cancel the load the others wait for.
        await asyncio.shield(loading)

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
            await self._structured(model, PING, DoctorPing, Call("doctor", "", None))
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
        await self._allowed(case_id)
        call = Call(template, template_hash, case_id)
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
        await self._allowed(case_id)
        call = Call(template, template_hash, case_id)
        return await self._with_fallbacks(tier, lambda model: self._text(model, messages, call))

    def limit_by(self, gate: BudgetGate) -> None:
        """Check ``gate`` before every call of a case (a gateway built before the budgets)."""
        self._gate = gate

    async def _allowed(self, case_id: str | None) -> None:
        """Raise ``LLMBudgetExceededError`` when a budget stops the call (no model configured
        raises as before, from `_models`)."""
        if self._gate is not None and self.enabled:
            await self._gate.check(case_id)

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
        self, model: str, messages: Sequence[ChatMessage], schema: type[ReplyT], call: Call
    ) -> ReplyT:
        fitted = await self._fitted(model, messages)
        while True:
            mode = self.mode(model)
            try:
                return await self._ask(mode, model, fitted, schema, call)
            except SchemaRefusedError as refused:
                assert self._book is not None
                if not self._book.step_down(model, mode, refused.detail):
                    raise LLMRefusedError(
                        RefusalCause.BAD_REQUEST, model=model, detail=refused.detail
                    ) from None

    async def _ask(
        self, mode: Mode, model: str, fitted: list[Message], schema: type[ReplyT], call: Call
    ) -> ReplyT:
        """One reply in ``mode``, with one repair attempt (afresh, in a lower mode, after prose)."""
        prompt = fitted if mode.sends_schema else with_schema_prompt(fitted, schema)
        first = await self._caller.complete(model, prompt, request_options(mode, schema), call)
        try:
            reply = validate(schema, first.content)
        except ValidationError as error:
            await self._caller.record(model, call, first, LLMCallOutcome.INVALID, brief(error))
            assert self._book is not None
            retry, mode = second_attempt(
                self._book, mode, model, fitted, prompt, first, error, schema
            )
        else:
            await self._caller.record(model, call, first, LLMCallOutcome.OK)
            return reply
        second = await self._caller.complete(model, retry, request_options(mode, schema), call)
        try:
            reply = validate(schema, second.content)
        except ValidationError as error:
            await self._caller.record(model, call, second, LLMCallOutcome.INVALID, brief(error))
            cut_off = first.cut_off and second.cut_off
            raise LLMReplyInvalidError(
                f"{model} replied invalid JSON twice", cut_off=cut_off
            ) from error
        await self._caller.record(model, call, second, LLMCallOutcome.REPAIRED)
        return reply

    async def _text(self, model: str, messages: Sequence[ChatMessage], call: Call) -> str:
        fitted = await self._fitted(model, messages)
        completion = await self._caller.complete(model, fitted, {}, call)
        await self._caller.record(model, call, completion, LLMCallOutcome.OK)
        return completion.content

    async def aclose(self) -> None:
        """Close the HTTP sessions litellm pooled in this event loop (at shutdown)."""
        if self._module is not None:
            await close_litellm_sessions()

    # ------------------------------------------------------------ helpers

    def _litellm(self) -> Any:
        if self._module is None:
            self._module = import_litellm()  # heavy (~4 s): imported on first use only
        return self._module

    async def _loaded(self) -> Any:
        """litellm, once `warm` has loaded it (never imported on the event loop)."""
        await self.warm()
        return self._litellm()

    async def _fitted(self, model: str, messages: Sequence[ChatMessage]) -> list[Message]:
        """``messages`` fitted to the window; a model's first count runs off the event loop.

        The first count looks the model's window up (for some providers, by asking the server)
        and builds the tokenizer: a second or more that would hold every case's turn.
        """
        await self._loaded()
        if model in self._counted:
            return self._fit(model, messages)
        fitted = await asyncio.to_thread(self._fit, model, messages)
        self._counted.add(model)
        return fitted

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

        plain: list[Message] = [{"role": m.role, "content": m.content} for m in messages]
        fitted = fit_messages(plain, budget=self._budget(model), count=count)
        images = [image for m in messages for image in m.images]
        if images and self.sees_images(model):
            fitted[-1] = with_images(fitted[-1], images)
        return fitted

    def sees_images(self, model: str | None = None) -> bool:
        """Whether ``model`` (default: the main one) takes images, as litellm's table says."""
        chosen = model or self._config.model
        if not chosen:
            return False
        if chosen not in self._vision:
            try:
                self._vision[chosen] = bool(self._litellm().supports_vision(model=chosen))
            except Exception:  # litellm raises several types for unmapped models
                self._vision[chosen] = False
        return self._vision[chosen]
