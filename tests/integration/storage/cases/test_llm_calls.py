"""LLM call records are kept in the database, per case, oldest first."""

from __future__ import annotations

import pytest

from domain.budget import LLMSpend
from domain.llm import LLMCallOutcome, LLMCallRecord
from storage import Repositories
from tests.integration.storage.builders import new_case
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


async def test_a_case_sums_its_calls_tokens_and_cost(repos: Repositories) -> None:
    await repos.llm_calls.record(call("case-1", 1))
    await repos.llm_calls.record(call("case-1", 2, cost_usd=0.001))
    await repos.llm_calls.record(call("case-2", 2))

    spend = await repos.llm_calls.for_case("case-1")

    assert (spend.calls, spend.tokens, spend.unpriced_calls) == (2, 4900, 0)
    assert spend.cost_usd == pytest.approx(0.00152)
    assert await repos.llm_calls.for_case("case-3") == LLMSpend()


async def test_calls_without_a_price_or_tokens_are_counted_as_such(repos: Repositories) -> None:
    await repos.llm_calls.record(call("case-1", 1, cost_usd=None))
    await repos.llm_calls.record(
        call("case-1", 2, prompt_tokens=None, completion_tokens=None, cost_usd=None)
    )

    spend = await repos.llm_calls.for_case("case-1")

    assert spend == LLMSpend(calls=2, tokens=2450, cost_usd=None, unpriced_calls=2)


async def test_several_cases_are_summed_in_one_query(repos: Repositories) -> None:
    await repos.llm_calls.record(call("case-1", 1))
    await repos.llm_calls.record(call("case-2", 1))
    await repos.llm_calls.record(call("case-2", 2))

    sums = await repos.llm_calls.for_cases(["case-1", "case-2", "case-3"])

    assert {key: spend.calls for key, spend in sums.items()} == {"case-1": 1, "case-2": 2}


async def test_a_workspace_day_counts_its_cases_and_calls_of_no_case(repos: Repositories) -> None:
    ours = await repos.cases.add(new_case(team_id="T1", thread_ts="1.1"))
    theirs = await repos.cases.add(new_case(team_id="T2", thread_ts="2.2"))
    await repos.llm_calls.record(call(ours.case_id, 1))
    await repos.llm_calls.record(call(None, 2))
    await repos.llm_calls.record(call(theirs.case_id, 3))
    await repos.llm_calls.record(call(ours.case_id, 60 * 24))  # the next day

    spend = await repos.llm_calls.for_team("T1", since=at(0), until=at(60 * 24))

    assert (spend.calls, spend.tokens) == (2, 4900)
