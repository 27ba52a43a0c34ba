"""`fm doctor --deep` for the models: one tiny structured call to each, said plainly."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import replace

from bot.cli.doctor import Check, Verdict
from bot.llm.config import GatewayConfig, gateway_config
from bot.llm.gateway import LiteLLMGateway
from bot.llm.probe import Probe
from bot.settings import Settings
from domain.llm import (
    LLMRateLimitedError,
    LLMRefusedError,
    LLMReplyInvalidError,
    LLMTimeoutError,
    MemoryCallRecorder,
    ModelTier,
)

PROBE_TIMEOUT_S = 30.0
"""A doctor waits no longer than this for one model, whatever FM_LLM_TIMEOUT_S says."""

ProbeModels = Callable[[GatewayConfig], Sequence[tuple[list[ModelTier], Probe]]]


def check_models(settings: Settings, probe: ProbeModels | None = None) -> list[Check]:
    """One line per configured model: the mode it answers in and how fast, or what is wrong."""
    config = gateway_config(settings)
    if not config.model:
        return []
    probes = (probe or probe_models)(config)
    return [_line(tiers, found, config) for tiers, found in probes]


def probe_models(config: GatewayConfig) -> list[tuple[list[ModelTier], Probe]]:
    """Ask each distinct model once, without retries, the fallbacks left out."""
    quick = replace(
        config,
        max_retries=0,
        fallback_models=(),
        timeout_s=min(config.timeout_s, PROBE_TIMEOUT_S),
    )
    gateway = LiteLLMGateway(quick, recorder=MemoryCallRecorder())
    gateway.load()
    tiers: dict[str, list[ModelTier]] = {}
    for tier, model in gateway.models():
        tiers.setdefault(model, []).append(tier)

    async def ask_all() -> list[tuple[list[ModelTier], Probe]]:
        try:
            return [(used, await gateway.probe(model)) for model, used in tiers.items()]
        finally:
            await gateway.aclose()

    return asyncio.run(ask_all())


def _line(tiers: list[ModelTier], probe: Probe, config: GatewayConfig) -> Check:
    name = "llm " + "+".join(tier.value for tier in tiers)
    if probe.error is None:
        detail = f"{probe.model}: answers in {probe.mode.value} mode ({probe.latency_ms} ms)."
        return Check(name, Verdict.OK, detail)
    return Check(name, Verdict.FAIL, f"{probe.model}: {diagnosis(probe.error, config, tiers)}")


def diagnosis(error: Exception, config: GatewayConfig, tiers: list[ModelTier]) -> str:
    """What went wrong at the model, and what to do, in one sentence."""
    setting = _setting(tiers)
    if isinstance(error, LLMRefusedError):
        happened, todo = error.explain(setting=setting)
        said = f" (the provider said: {error.detail})" if error.detail else ""
        return f"{happened}{said}; {todo}."
    if isinstance(error, LLMTimeoutError):
        return (
            f"no answer within {config.timeout_s:g} s; check that the model server is up and "
            "FM_LLM_API_BASE points at it, or raise FM_LLM_TIMEOUT_S for a slow local model."
        )
    if isinstance(error, LLMRateLimitedError):
        return "the provider is rate-limiting this key; try again later or check the plan's limits."
    if isinstance(error, LLMReplyInvalidError):
        return (
            "it answered, but not with JSON matching a one-field schema, twice; this model is "
            f"probably too small for structured replies: choose another with {setting}."
        )
    where = config.api_base or "the provider's public endpoint"
    return (
        f"could not connect to {where} ({error}); check FM_LLM_API_BASE, the network and any "
        "proxy between this host and the model."
    )


def _setting(tiers: list[ModelTier]) -> str:
    if ModelTier.MAIN in tiers:
        return "FM_LLM_MODEL"
    return "FM_LLM_FAST_MODEL" if ModelTier.FAST in tiers else "FM_LLM_JUDGE_MODEL"
