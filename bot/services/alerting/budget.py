"""The alert channel hears once when a model budget is reached.

The gate tells this once per process; the audit log makes it once in all: a replica or a restart
that reaches the same budget finds it already told (the day's since midnight UTC, a case's ever).
"""

from __future__ import annotations

import logging

from bot.services.cases import CaseStore
from bot.thread.alerts import AlertThread
from domain.budget import Breach, BudgetScope, day_of
from domain.ports import AuditRepository, Clock
from domain.records import AuditEntry

logger = logging.getLogger(__name__)

REACHED = {BudgetScope.DAY: "budget.day_reached", BudgetScope.CASE: "budget.case_reached"}


class BudgetNotices:
    """Posts a reached budget in the alert channel and audits it."""

    def __init__(
        self,
        *,
        shown: AlertThread,
        channel: str,
        cases: CaseStore,
        audit: AuditRepository,
        clock: Clock,
    ) -> None:
        self._shown = shown
        self._channel = channel
        self._cases = cases
        self._audit = audit
        self._clock = clock

    async def tell(self, breach: Breach, case_id: str) -> None:
        """One message in the alert channel: which budget, and what happens now."""
        case = await self._cases.get(case_id)
        action = REACHED[breach.scope]
        if await self._told(case.team_id, case.case_id, action):
            return
        label = case.label if breach.scope is BudgetScope.CASE else None
        await self._shown.budget_reached(self._channel, breach, case_label=label)
        await self._audit.record(
            AuditEntry(
                team_id=case.team_id,
                case_id=case.case_id if breach.scope is BudgetScope.CASE else None,
                actor="faultmaven",
                action=action,
                detail={"limit": breach.limit, "spent": breach.spent},
                source="system",
                at=self._clock.now(),
            )
        )
        logger.info("budget reached, alert channel told", extra={"scope": breach.scope.value})

    async def _told(self, team_id: str, case_id: str, action: str) -> bool:
        if action == REACHED[BudgetScope.CASE]:
            entries = await self._audit.list_for_case(case_id)
            return any(entry.action == action for entry in entries)
        since, _ = day_of(self._clock.now())
        return await self._audit.recorded_since(team_id, action, since=since)
