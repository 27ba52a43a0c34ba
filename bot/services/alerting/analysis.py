"""The alert's analysis in its case thread: RCA, then strategies offered with Approve / Reject.

Runs as its own inbox item in the thread's order, after the alert opened the case. Validated
strategies are stored before their messages are posted, so a click always finds its strategy; an
analysis already recorded for this work is not run twice.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from bot.inbox.retry import RetryLater
from bot.inbox.work import RcaWork
from bot.services.cases import CaseStore
from bot.services.thread.presenter import ThreadPresenter
from bot.slack.errors import is_transient
from bot.slack.render.remediation import analysis_record, rca_message, strategy_message
from domain.base import new_id
from domain.case import Case
from domain.ports import AuditRepository, Clock, MessageRepository
from domain.records import AuditEntry, ConversationMessage, MessageRole, PostedKind
from domain.workflows.catalog import Catalog
from domain.workflows.incident import build_incident_context
from domain.workflows.planner import RcaOutcome, RcaPlanner
from domain.workflows.ports import AlertGroupRepository, RemediationRepository
from domain.workflows.remediation import RemediationStrategy, propose

logger = logging.getLogger(__name__)

ANALYSED = "workflow.analysed"
BOT_AUTHOR = "bot"
LOGGED_REPLY_CHARS = 4000


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
    messages: MessageRepository
    audit: AuditRepository
    clock: Clock


class AnalysisService:
    """One analysis per alert case."""

    def __init__(self, ports: AnalysisPorts) -> None:
        self._p = ports

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
        if case.is_terminal or group is None or await self._done(case, work.case_id):
            return
        presenter = self._p.presenter
        context = build_incident_context(
            group.latest, dedup=group.dedup(), received_at=group.last_seen
        )
        async with presenter.working(case, doing="is analysing the alert…"):
            outcome = await self._p.planner.analyse(context, case_id=case.case_id)
            rendered = rca_message(
                outcome, signal_severity=context.severity, catalog=self._p.catalog_configured
            )
            # A retry finds the analysis its first try posted, under the first try's key.
            at = await presenter.ts_of(case, PostedKind.REPLY, work_key)
            if at is None:
                at = await presenter.post_kept(case, rendered, PostedKind.REPLY, work_key)
            else:
                await presenter.replace(case, at, rendered)
        strategies = await self._offer(case, outcome)
        await self._p.messages.add(
            ConversationMessage(
                case_id=case.case_id,
                ts=at,
                author=BOT_AUTHOR,
                role=MessageRole.ASSISTANT,
                text=analysis_record(outcome, strategies),
                created_at=self._p.clock.now(),
            )
        )
        await self._record(case, outcome, strategies)
        await self._p.presenter.show_header(case)

    async def _done(self, case: Case, case_id: str) -> bool:
        """An earlier run recorded this case's analysis (a resumed or repeated item)."""
        entries = await self._p.audit.list_for_case(case_id)
        return any(entry.action == ANALYSED for entry in entries)

    async def _offer(self, case: Case, outcome: RcaOutcome) -> list[RemediationStrategy]:
        """Store the validated strategies, then post each with its buttons."""
        if outcome.validation is None or not outcome.validation.ok:
            return []
        now = self._p.clock.now()
        strategies = propose(
            outcome.validation.strategies, case=case, batch_id=new_id("rca"), now=now
        )
        await self._p.remediations.add_all(strategies)
        for strategy in strategies:
            workflow = self._p.catalog.get(strategy.workflow_id, strategy.version)
            assert workflow is not None  # validated against the catalog's own workflows
            rendered = strategy_message(strategy, workflow, total=len(strategies))
            await self._p.presenter.post_kept(
                case, rendered, PostedKind.STRATEGY, strategy.strategy_id
            )
        return strategies

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
