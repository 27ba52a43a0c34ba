"""How the gateway reaches the models: built from settings by the composition root."""

from __future__ import annotations

from dataclasses import dataclass

from bot.settings import Settings
from domain.retry import RetryPolicy


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

    def retry_policy(self) -> RetryPolicy:
        """Transient failures of one call: ``max_retries`` more tries, full-jitter backoff."""
        return RetryPolicy(
            attempts=self.max_retries + 1,
            first_delay_s=self.backoff_base_s,
            max_delay_s=self.backoff_max_s,
            jitter=True,
        )


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
