"""The alert's analysis in its case thread: RCA, then strategies offered with Approve / Reject.

Runs as its own inbox item in the thread's order, after the alert opened the case (after the
debounce, when one is set). Validated strategies are stored before their messages are posted, so
a click always finds its strategy; an analysis already recorded for the case is not run again,
however many notifications the group brings. At most so many run at once (`InvestigationSlots`):
the others wait in line, say so once in their thread, and are queued again a moment later. A
reached model budget skips the analysis with its one sentence.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import timedelta
from typing import Any, Protocol

from bot.inbox.retry import RetryLater
from bot.inbox.work import RcaWork
from bot.services.alerting.looking import AlertLooks
from bot.services.alerting.slots import InvestigationSlots
from bot.services.cases import CaseStore
from bot.services.intake import Intake
from bot.services.memory import SeenBeforeService
from bot.slack.errors import is_transient
from bot.thread.charts import Charted
from bot.thread.memory import Lead
from bot.thread.presenter import ThreadPresenter
from bot.thread.remediation import Offered, RemediationThread
from domain.base import new_id
from domain.budget import LLMBudgetExceededError
from domain.case import Case
from domain.ports import AuditRepository, Clock, MessageRepository
from domain.records import AuditEntry, ConversationMessage, MessageRole
from domain.workflows.alert_groups import AlertGroupRecord
from domain.workflows.catalog import Catalog
from domain.workflows.incident import build_incident_context
from domain.workflows.planner import RcaOutcome, RcaPlanner
from domain.workflows.ports import AlertGroupRepository, RemediationRepository
from domain.workflows.remediation import RemediationStrategy, propose

logger = logging.getLogger(__name__)

ANALYSED = "workflow.analysed"
BOT_AUTHOR = "bot"
LOGGED_REPLY_CHARS = 4000
WAIT_S = 2.0
"""How soon an analysis waiting for a slot looks again."""


class BudgetCheck(Protocol):
    """Raises ``LLMBudgetExceededError`` when a budget stops the case's model calls."""

    async def check(self, case_id: str | None) -> None:
        """Return when the case may call the model."""
        ...


@dataclass(frozen=True)
class AnalysisPorts:
    """What the analysis works with."""

    planner: RcaPlanner
    catalog: Catalog
    catalog_configured: bool
    groups: AlertGroupRepository
    remediations: RemediationRepository
    cases: CaseStore
    presenter: ThreadPresenter
    shown: RemediationThread
    """Draws the analysis, the strategies and the notes of waiting or a reached budget."""
    messages: MessageRepository
    audit: AuditRepository
    clock: Clock
    intake: Intake | None = None
    """Queues an analysis that waits for a slot again (without it, analyses never wait)."""
    budget: BudgetCheck | None = None
    looks: AlertLooks | None = None
    """Runs the trusted tools that suit the alert before its analysis (without it, none)."""
    memory: SeenBeforeService | None = None
    """Looks for the finished case the alert repeats, shown above its analysis (or none)."""


class AnalysisService:
    """One analysis per alert case."""

    def __init__(
        self,
        ports: AnalysisPorts,
        *,
        slots: InvestigationSlots | None = None,
        wait_s: float = WAIT_S,
    ) -> None:
        self._p = ports
        self._slots = slots if ports.intake is not None else None
        self._wait_s = wait_s

    async def analyse(self, *, work: RcaWork, work_key: str) -> None:
        """RCA and strategies in the thread; retried later if Slack is briefly unavailable."""
        try:
            await self._analyse(work, work_key)
        except Exception as error:
            if is_transient(error):
                raise RetryLater() from error
            raise

    async def _analyse(self, work: RcaWork, work_key: str) -> None:
        case = await self._p.cases.get(work.case_id)
        group = await self._p.groups.for_case(case.case_id)
        slots = self._slots
        if case.is_terminal or group is None or await self._done(case, work.case_id):
            if slots is not None:
                slots.release(case.case_id)
            return
        if slots is not None:
            place = slots.take(case.case_id, opened_at=case.created_at)
            if place:
                await self._wait(case, work, place, slots.limit)
                return
        try:
            if not await self._over_budget(case):
                await self._run(case, group, work_key)
        finally:
            if slots is not None:
                slots.release(case.case_id)

    async def _wait(self, case: Case, work: RcaWork, place: int, limit: int) -> None:
        """Say once that the analysis waits its turn, and look again in a moment."""
        assert self._p.intake is not None
        if work.waits == 0:
            await self._p.shown.waiting(case, position=place, limit=limit)
        logger.info("alert analysis waits for a slot", extra={"case_id": case.case_id})
        again = work.model_copy(update={"waits": work.waits + 1})
        await self._p.intake.record(
            again,
            dedup_key=f"rca:{case.case_id}:wait:{again.waits}",
            team_id=case.team_id,
            case_key=work.thread.key,
            available_at=self._p.clock.now() + timedelta(seconds=self._wait_s),
        )

    async def _over_budget(self, case: Case) -> bool:
        """A reached budget: its sentence in the thread instead of the analysis."""
        if self._p.budget is None:
            return False
        try:
            await self._p.budget.check(case.case_id)
        except LLMBudgetExceededError as error:
            await self._p.shown.budget_reached(case, error.breach)
            await self._p.audit.record(
                AuditEntry(
                    team_id=case.team_id,
                    case_id=case.case_id,
                    actor="faultmaven",
                    action=ANALYSED,
                    detail={"outcome": "budget", "scope": error.breach.scope.value},
                    source="system",
                    at=self._p.clock.now(),
                )
            )
            return True
        return False

    async def _run(self, case: Case, group: AlertGroupRecord, work_key: str) -> None:
        presenter = self._p.presenter
        context = build_incident_context(
            group.latest, dedup=group.dedup(), received_at=group.last_seen
        )
        async with presenter.working(case, doing="is analysing the alert…"):
            if self._p.looks is not None:
                case, observed = await self._p.looks.look(case, group.latest)
                context = context.model_copy(update={"observed": observed})
            case, recalled = await self._recall(case)
            outcome = await self._p.planner.analyse(context, case_id=case.case_id)
            offered = await self._offer(case, outcome)
            # A retry finds the analysis its first try posted, under the first try's key.
            at = await self._p.shown.show_analysis(
                case,
                outcome,
                context=context,
                catalog=self._p.catalog_configured,
                lead=recalled,
                key=work_key,
                offered=offered,
            )
        charted = [Charted(o.tool, o.citation, o.text) for o in context.observed]
        await presenter.share_charts(case, charted)
        strategies = [strategy for strategy, _ in offered]
        await self._p.messages.add(
            ConversationMessage(
                case_id=case.case_id,
                ts=at,
                author=BOT_AUTHOR,
                role=MessageRole.ASSISTANT,
                text=self._p.shown.in_words(outcome, strategies),
                created_at=self._p.clock.now(),
            )
        )
        await self._record(case, outcome, strategies)
        await self._p.presenter.show_header(case)

    async def _recall(self, case: Case) -> tuple[Case, list[Lead]]:
        """The case after its look for a past case the alert repeats, and the block if found."""
        if self._p.memory is None:
            return case, []
        return await self._p.memory.look(case, opened_by_alert=True)

    async def _done(self, case: Case, case_id: str) -> bool:
        """An earlier run recorded this case's analysis (a resumed or repeated item)."""
        entries = await self._p.audit.list_for_case(case_id)
        return any(entry.action == ANALYSED for entry in entries)

    async def _offer(self, case: Case, outcome: RcaOutcome) -> list[Offered]:
        """Store the validated strategies, each with the workflow it would run (shown under
        the analysis, with its buttons)."""
        if outcome.validation is None or not outcome.validation.ok:
            return []
        now = self._p.clock.now()
        strategies = propose(
            outcome.validation.strategies, case=case, batch_id=new_id("rca"), now=now
        )
        await self._p.remediations.add_all(strategies)
        offered: list[Offered] = []
        for strategy in strategies:
            workflow = self._p.catalog.get(strategy.workflow_id, strategy.version)
            assert workflow is not None  # validated against the catalog's own workflows
            offered.append((strategy, workflow))
        return offered

    async def _record(
        self, case: Case, outcome: RcaOutcome, strategies: list[RemediationStrategy]
    ) -> None:
        detail: dict[str, Any] = {
            "outcome": outcome.kind.value,
            "query": outcome.query,
            "filters": outcome.filters.describe(),
            "offered": [w.key for w in outcome.offered],
            "rca_severity": outcome.severity.value if outcome.severity else None,
            "problems": outcome.problems,
            "strategies": [
                {
                    "strategy_id": s.strategy_id,
                    "workflow": f"{s.workflow_id}@{s.version}",
                    "confidence": s.confidence,
                    "estimated_risk": s.estimated_risk.value,
                    "parameters": s.parameters,
                }
                for s in strategies
            ],
        }
        if outcome.problems and outcome.reply is not None:
            # The seed: a reply that failed validation is kept with the error, for debugging.
            detail["reply"] = outcome.reply.model_dump_json()[:LOGGED_REPLY_CHARS]
        await self._p.audit.record(
            AuditEntry(
                team_id=case.team_id,
                case_id=case.case_id,
                actor="faultmaven",
                action=ANALYSED,
                detail=detail,
                source="system",
                at=self._p.clock.now(),
            )
        )
