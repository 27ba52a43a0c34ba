"""The litellm gateway's retries, back-off and fallbacks, against a fake server over real HTTP."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from email.utils import format_datetime

import pytest

from domain.llm import (
    LLMCallOutcome,
    LLMRateLimitedError,
    LLMRefusedError,
    LLMTimeoutError,
    LLMUnavailableError,
    ModelTier,
    RefusalCause,
)
from tests.fakes.models.gateway import gateway_for
from tests.fakes.models.llm_server import (
    FakeLLMServer,
    delayed,
    dropped,
    reply,
    status,
)
from tests.unit.bot.llm.verdict import GOOD, ask


async def test_rate_limits_wait_as_long_as_retry_after_says(server: FakeLLMServer) -> None:
    kit = gateway_for(server)
    server.script(status(429, retry_after="3"), reply(GOOD))

    assert await ask(kit.gateway) == GOOD

    assert kit.sleeps.waits == [3.0]
    assert len(server.requests) == 2


async def test_retry_after_as_an_http_date_is_honoured(server: FakeLLMServer) -> None:
    kit = gateway_for(server)
    when = format_datetime(datetime.now(UTC) + timedelta(seconds=4), usegmt=True)
    server.script(status(429, retry_after=when), reply(GOOD))

    await ask(kit.gateway)

    (wait,) = kit.sleeps.waits
    assert 2.0 < wait <= 4.0


async def test_a_long_retry_after_is_capped(server: FakeLLMServer) -> None:
    kit = gateway_for(server, backoff_max_s=1.5)
    server.script(status(429, retry_after="600"), reply(GOOD))

    await ask(kit.gateway)

    assert kit.sleeps.waits == [1.5]


async def test_an_unreadable_retry_after_falls_back_to_backoff(server: FakeLLMServer) -> None:
    kit = gateway_for(server)
    server.script(status(429, retry_after="soon"), reply(GOOD))

    await ask(kit.gateway)

    assert kit.sleeps.waits == [0.01]


async def test_server_errors_back_off_exponentially(server: FakeLLMServer) -> None:
    kit = gateway_for(server)
    server.script(status(500), status(503), reply(GOOD))

    assert await ask(kit.gateway) == GOOD

    assert kit.sleeps.waits == [0.01, 0.02]


async def test_backoff_has_jitter(server: FakeLLMServer) -> None:
    kit = gateway_for(server, jitter=lambda: 0.25)
    server.script(status(502), reply(GOOD))

    await ask(kit.gateway)

    assert kit.sleeps.waits == [0.0025]


async def test_a_dropped_connection_is_retried(server: FakeLLMServer) -> None:
    kit = gateway_for(server)
    server.script(dropped(), reply(GOOD))

    assert await ask(kit.gateway) == GOOD
    assert len(server.requests) == 2


async def test_rate_limit_exhaustion_is_reported_as_such(server: FakeLLMServer) -> None:
    kit = gateway_for(server, max_retries=1)
    server.script(status(429, retry_after="0"), status(429, retry_after="0"))

    with pytest.raises(LLMRateLimitedError):
        await ask(kit.gateway)

    assert len(server.requests) == 2
    assert [r.outcome for r in kit.recorder.records] == [LLMCallOutcome.RATE_LIMITED]


async def test_a_provider_that_keeps_failing_is_unavailable(server: FakeLLMServer) -> None:
    kit = gateway_for(server, max_retries=1)
    server.script(status(500), status(500))

    with pytest.raises(LLMUnavailableError) as raised:
        await ask(kit.gateway)

    assert type(raised.value) is LLMUnavailableError
    assert kit.recorder.records[-1].outcome is LLMCallOutcome.UNAVAILABLE


async def test_a_timeout_is_not_retried(server: FakeLLMServer) -> None:
    kit = gateway_for(server, timeout_s=0.2)
    server.script(delayed(GOOD, 1.0))

    with pytest.raises(LLMTimeoutError):
        await ask(kit.gateway)

    assert len(server.requests) == 1
    (record,) = kit.recorder.records
    assert record.outcome is LLMCallOutcome.TIMEOUT
    assert record.latency_ms >= 150


async def test_a_client_error_is_a_refusal_and_is_not_retried(server: FakeLLMServer) -> None:
    kit = gateway_for(server)
    server.script(status(400, message="Invalid value for 'temperature'."))

    with pytest.raises(LLMRefusedError) as refused:
        await ask(kit.gateway)

    assert refused.value.cause is RefusalCause.BAD_REQUEST
    assert len(server.requests) == 1
    assert kit.recorder.records[0].outcome is LLMCallOutcome.REFUSED
    assert kit.sleeps.waits == []


async def test_fallback_models_are_tried_in_order(server: FakeLLMServer) -> None:
    kit = gateway_for(server, max_retries=0, fallback_models=("openai/backup-model",))
    server.script(status(500), reply(GOOD))

    assert await ask(kit.gateway) == GOOD

    assert [r["model"] for r in server.requests] == ["test-model", "backup-model"]
    records = kit.recorder.records
    assert [(r.model, r.outcome) for r in records] == [
        ("openai/test-model", LLMCallOutcome.UNAVAILABLE),
        ("openai/backup-model", LLMCallOutcome.OK),
    ]


async def test_the_last_failure_is_raised_when_every_model_fails(server: FakeLLMServer) -> None:
    kit = gateway_for(server, max_retries=0, fallback_models=("openai/backup-model",))
    server.script(status(500), status(429))

    with pytest.raises(LLMRateLimitedError):
        await ask(kit.gateway)


async def test_each_tier_uses_its_model(server: FakeLLMServer) -> None:
    kit = gateway_for(server, fast_model="openai/fast-model", judge_model="openai/judge-model")
    server.script(reply(GOOD), reply(GOOD), reply(GOOD))

    for tier in (ModelTier.FAST, ModelTier.JUDGE, ModelTier.MAIN):
        await ask(kit.gateway, tier)

    assert [r["model"] for r in server.requests] == ["fast-model", "judge-model", "test-model"]
