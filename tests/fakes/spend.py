"""The spend ledger in memory: sums of the call records a `MemoryCallRecorder` kept."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime

from domain.budget import LLMSpend
from domain.llm import LLMCallRecord, MemoryCallRecorder


class MemorySpendLedger:
    """``domain.budget.SpendLedger`` and ``bot.llm.budget.CaseTeams`` over recorded calls."""

    def __init__(self, recorder: MemoryCallRecorder, teams: dict[str, str] | None = None) -> None:
        self.recorder = recorder
        self.teams = teams if teams is not None else {}

    async def for_case(self, case_id: str) -> LLMSpend:
        """What a case's calls cost."""
        return summed(r for r in self.recorder.records if r.case_id == case_id)

    async def for_cases(self, case_ids: Sequence[str]) -> dict[str, LLMSpend]:
        """Each case's spend, cases without calls left out."""
        found = {r.case_id for r in self.recorder.records}
        return {case_id: await self.for_case(case_id) for case_id in case_ids if case_id in found}

    async def for_team(self, team_id: str, *, since: datetime, until: datetime) -> LLMSpend:
        """A workspace's calls in ``[since, until)``, calls of no case included."""
        return summed(
            r
            for r in self.recorder.records
            if since <= r.at < until and (r.case_id is None or self.teams.get(r.case_id) == team_id)
        )

    async def team_of(self, case_id: str) -> str | None:
        """The case's workspace, if it was named."""
        return self.teams.get(case_id)


def summed(records: Iterable[LLMCallRecord]) -> LLMSpend:
    """The spend of some records, as the SQL query sums them."""
    chosen = list(records)
    priced = [r.cost_usd for r in chosen if r.cost_usd is not None]
    return LLMSpend(
        calls=len(chosen),
        tokens=sum((r.prompt_tokens or 0) + (r.completion_tokens or 0) for r in chosen),
        cost_usd=sum(priced) if priced else None,
        unpriced_calls=len(chosen) - len(priced),
    )
