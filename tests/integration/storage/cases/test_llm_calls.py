"""LLM call records are kept in the database, per case, oldest first."""

from __future__ import annotations

from domain.llm import LLMCallOutcome, LLMCallRecord
from storage import Repositories
from tests.integration.storage.case_parts import at


def call(case_id: str | None, minute: int, **changes: object) -> LLMCallRecord:
    """One recorded call of the investigating template."""
    fields: dict[str, object] = {
        "case_id": case_id,
        "model": "openai/gpt-4o-mini",
        "template": "investigating",
        "template_hash": "a" * 64,
        "latency_ms": 1840,
        "prompt_tokens": 2100,
        "completion_tokens": 350,
        "cost_usd": 0.00052,
        "outcome": LLMCallOutcome.OK,
        "at": at(minute),
    }
    return LLMCallRecord.model_validate(fields | changes)


async def test_a_case_lists_its_calls_oldest_first_with_every_field(repos: Repositories) -> None:
    later = call("case-1", 5, outcome=LLMCallOutcome.REPAIRED)
    earlier = call("case-1", 2)
    failed = call(
        "case-1",
        7,
        outcome=LLMCallOutcome.TIMEOUT,
        error="no answer within 60 s",
        prompt_tokens=None,
        completion_tokens=None,
        cost_usd=None,
    )
    for record in (later, earlier, failed):
        await repos.llm_calls.record(record)

    assert await repos.llm_calls.list_for_case("case-1") == [earlier, later, failed]


async def test_calls_of_other_cases_and_without_a_case_are_kept_apart(
    repos: Repositories,
) -> None:
    await repos.llm_calls.record(call("case-1", 1))
    await repos.llm_calls.record(call("case-2", 1, template="consulting"))
    await repos.llm_calls.record(call(None, 1, template="kb_synthesis"))

    [other] = await repos.llm_calls.list_for_case("case-2")
    assert other.template == "consulting"
    assert [c.case_id for c in await repos.llm_calls.list_for_case("case-1")] == ["case-1"]
    assert await repos.llm_calls.list_for_case("case-3") == []
