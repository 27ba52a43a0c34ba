"""The budget gate: no model call once a case's cap or the workspace's daily budget is reached.

Asked before every call of a case (`LiteLLMGateway` calls `check`); it sums what was spent from
the call records (`domain.budget.SpendLedger`) and raises ``LLMBudgetExceededError``, which the
core takes as "no model": a turn becomes a plain answer that opens with the budget's sentence,
an alert's analysis is skipped with it, a report is written from the case alone. The first
refusal of each budget (a case, a day) is passed to the listeners, once per process, so the alert
channel hears of it once. Calls outside a case (a knowledge-base answer) are counted in the day's
spend but not stopped: they are small, and nothing shows them a sentence.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Protocol

from domain.budget import (
    Breach,
    BudgetLimits,
    BudgetScope,
    LLMBudgetExceededError,
    LLMSpend,
    SpendLedger,
    breached,
    day_of,
)
from domain.ports import Clock

logger = logging.getLogger(__name__)

BreachListener = Callable[[Breach, str], Awaitable[None]]
"""Told ``(breach, case_id)`` the first time a budget stops a call."""


class CaseTeams(Protocol):
    """Which workspace a case belongs to."""

    async def team_of(self, case_id: str) -> str | None:
        """The case's team id, or None for an unknown case."""
        ...


class BudgetGate:
    """Checks the configured limits before a case's model call."""

    def __init__(
        self,
        limits: BudgetLimits,
        *,
        ledger: SpendLedger,
        teams: CaseTeams,
        clock: Clock,
        on_day_ratio: Callable[[float], None] | None = None,
    ) -> None:
        self.limits = limits
        self._ledger = ledger
        self._teams = teams
        self._clock = clock
        self._on_day_ratio = on_day_ratio
        self._listeners: list[BreachListener] = []
        self._told: set[str] = set()

    def subscribe(self, listener: BreachListener) -> None:
        """Be told of each budget the first time it stops a call."""
        self._listeners.append(listener)

    async def check(self, case_id: str | None) -> None:
        """Raise ``LLMBudgetExceededError`` when a budget stops this case's call."""
        if case_id is None:
            return
        breach = await self.breach(case_id)
        if breach is None:
            return
        logger.info(
            "model call stopped by a budget", extra={"case_id": case_id, "scope": breach.scope}
        )
        await self._tell(breach, case_id)
        raise LLMBudgetExceededError(breach)

    async def breach(self, case_id: str) -> Breach | None:
        """The budget this case's next call would break, or None (no query without budgets)."""
        limits = self.limits
        if not limits.any:
            return None
        now = self._clock.now()
        case = await self._ledger.for_case(case_id) if limits.has_case else None
        day = LLMSpend()
        if limits.has_day:
            team_id = await self._teams.team_of(case_id)
            if team_id is not None:
                since, until = day_of(now)
                day = await self._ledger.for_team(team_id, since=since, until=until)
                self._report_ratio(day)
        return breached(limits, case=case, day=day, now=now)

    def _report_ratio(self, day: LLMSpend) -> None:
        if self._on_day_ratio is None:
            return
        ratios = []
        if self.limits.day_usd is not None:
            ratios.append((day.cost_usd or 0.0) / self.limits.day_usd)
        if self.limits.day_tokens is not None:
            ratios.append(day.tokens / self.limits.day_tokens)
        self._on_day_ratio(max(ratios))

    async def _tell(self, breach: Breach, case_id: str) -> None:
        key = f"case:{case_id}" if breach.scope is BudgetScope.CASE else f"day:{breach.resets_at}"
        if key in self._told:
            return
        self._told.add(key)
        for listener in self._listeners:
            try:
                await listener(breach, case_id)
            except Exception:  # a notice that fails must not turn the refusal into a crash
                logger.warning("could not tell of a reached budget", exc_info=True)
