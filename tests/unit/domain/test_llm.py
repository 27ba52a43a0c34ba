"""The LLM port's records and errors."""

from __future__ import annotations

from domain.llm import (
    LLMCallOutcome,
    LLMCallRecord,
    LLMRateLimitedError,
    LLMTimeoutError,
    LLMUnavailableError,
    MemoryCallRecorder,
)


def record(n: int) -> LLMCallRecord:
    return LLMCallRecord(
        model="openai/test",
        template=f"t{n}",
        template_hash="h",
        latency_ms=n,
        outcome=LLMCallOutcome.OK,
    )


async def test_the_memory_recorder_keeps_the_newest_records() -> None:
    recorder = MemoryCallRecorder(limit=2)

    for n in range(3):
        await recorder.record(record(n))

    assert [r.template for r in recorder.records] == ["t1", "t2"]


def test_timeouts_and_rate_limits_are_kinds_of_unavailability() -> None:
    assert issubclass(LLMTimeoutError, LLMUnavailableError)
    assert issubclass(LLMRateLimitedError, LLMUnavailableError)
