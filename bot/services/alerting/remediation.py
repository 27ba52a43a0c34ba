"""Approve / Reject on a remediation strategy: decided once, by an allowed person, audited.

Approving is the approver's Yes to the alert as the problem: a case still being described starts
its investigation (a status change answered by them, audited like a click on Yes). It hands the
workflow and its parameters to the configured executor, withdraws the other strategies of the same
analysis, posts what happened and asks for evidence that it worked (an evidence request of the
case, so the investigation carries on as usual and a reply with the evidence answers it).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from bot.inbox.work import ClickWork
from bot.services.cases import CaseStore
from bot.services.ports import Responders
from bot.slack.errors import BotError, refusal
from bot.slack.ids import ActionId, StrategyValue, load_value, parse_action_id
from bot.thread.alerts import Told
from bot.thread.presenter import ThreadPresenter
from bot.thread.remediation import RemediationThread
from domain.case import Case
from domain.errors import NotFoundError, TerminalCaseError
from domain.lifecycle.confirmations import PendingConfirmation
from domain.lifecycle.status import CaseStatus
from domain.people import mention
from domain.ports import AuditRepository, Clock, MessageRepository
from domain.records import AuditEntry, ConversationMessage, MessageRole
from domain.workflows.catalog import Catalog, Workflow
from domain.workflows.ports import RemediationRepository, WorkflowExecutor
from domain.workflows.remediation import (
    ExecutionResult,
    ExecutionStatus,
    RemediationStrategy,
    StrategyStatus,
    approval_confirms_problem,
    execution_request,
    may_decide,
    outcome_status,
    verification_request,
)

logger = logging.getLogger(__name__)

BOT_AUTHOR = "bot"
DECISIONS = {ActionId.APPROVE: StrategyStatus.APPROVED, ActionId.REJECT: StrategyStatus.REJECTED}
GONE = "The workflow {key} is no longer in the catalog, so nothing ran."


@dataclass(frozen=True)
class RemediationPorts:
    """What deciding on strategies works with."""

    remediations: RemediationRepository
    catalog: Catalog
    executor: WorkflowExecutor
    cases: CaseStore
    presenter: ThreadPresenter
    shown: RemediationThread
    """Draws the decided strategies and what the executor did."""
    responders: Responders
    messages: MessageRepository
    audit: AuditRepository
    clock: Clock


class RemediationService:
    """Handles the Approve and Reject buttons of strategies."""

    def __init__(self, ports: RemediationPorts) -> None:
        self._p = ports

    async def decide(self, *, work: ClickWork) -> None:
        """Apply one click, once, for a person allowed to decide in this case."""
        action = parse_action_id(work.action_id)
        if action not in DECISIONS:
            raise BotError("That button is not one of mine.")
        clicked = await self._clicked(work)
        if clicked is None:
            return
        case, strategy = clicked
        status = DECISIONS[action]
        if _interrupted(strategy, work.user_id, status):
            await self._execute(await self._confirm_problem(case, strategy), strategy)
            return
        now = self._p.clock.now()
        if not await self._p.remediations.decide(
            strategy.strategy_id, status=status, by=work.user_id, at=now
        ):
            await self._whisper(work, _stale(await self._p.remediations.get(strategy.strategy_id)))
            return
        decided = strategy.model_copy(
            update={"status": status, "decided_by": work.user_id, "decided_at": now}
        )
        await self._audit(case, decided, work.user_id, f"workflow.{status.value}")
        if status is not StrategyStatus.APPROVED:
            await self._redraw(case, [decided.strategy_id])
            return
        case = await self._confirm_problem(case, decided)
        others = await self._withdraw_others(decided)
        await self._redraw(case, [decided.strategy_id, *others])
        await self._execute(case, decided)

    async def _clicked(self, work: ClickWork) -> tuple[Case, RemediationStrategy] | None:
        """The open case and its strategy; None when the clicker was told they may not decide."""
        value = load_value(StrategyValue, work.value)
        case = await self._case(work, value.case_id)
        strategy = await self._p.remediations.get(value.strategy_id)
        if strategy.case_id != case.case_id:
            raise NotFoundError("strategy of another case")
        if case.is_terminal:
            raise TerminalCaseError("the case is finished")
        refused = await self._refusal(case, work.user_id)
        if refused is None:
            return case, strategy
        logger.info("decision refused", extra={"case_id": case.case_id, "user": work.user_id})
        await self._whisper(work, refused)
        return None

    async def _refusal(self, case: Case, user_id: str) -> str | None:
        """None when ``user_id`` may decide; else who may, from a fresh list of the responders
        (someone told to join a channel or group, who did, is not refused from an old list)."""
        responders = self._p.responders
        if may_decide(case, user_id, responders=await responders.for_case(case)):
            return None
        fresh = await responders.for_case(case, fresh=True)
        if may_decide(case, user_id, responders=fresh):
            return None
        return refusal(responders=fresh, deciding=True)

    async def _case(self, work: ClickWork, case_id: str) -> Case:
        return await self._p.cases.clicked(case_id, work.team_id)

    async def _confirm_problem(self, case: Case, approved: RemediationStrategy) -> Case:
        """The approval is the approver's Yes to the alert as the problem: a case still being
        described starts its investigation, saved with the audit of that answer."""
        if case.status is not CaseStatus.CONSULTING:
            return case
        now = self._p.clock.now()
        answered: list[PendingConfirmation] = []

        async def step(current: Case) -> tuple[Case, None]:
            answered.clear()
            confirmation = approval_confirms_problem(current, approved, now=now)
            if confirmation is not None:
                answered.append(confirmation)
            return current, None

        def audit(changed: Case) -> list[AuditEntry]:
            return [_answered_entry(changed, confirmation) for confirmation in answered]

        saved, _ = await self._p.cases.update(case, step, audit=audit)
        return saved

    async def finished(self, case: Case) -> None:
        """A case just finished: the workflows still offered in it are drawn without buttons."""
        strategies = await self._p.remediations.list_for_case(case.case_id)
        undecided = [s.strategy_id for s in strategies if s.status is StrategyStatus.PROPOSED]
        if undecided:
            await self._redraw(case, undecided)

    async def _withdraw_others(self, approved: RemediationStrategy) -> list[str]:
        """The other strategies of the approved one's analysis, superseded (their ids)."""
        others = await self._p.remediations.supersede_others(
            approved.batch_id, keep=approved.strategy_id, at=self._p.clock.now()
        )
        return [other.strategy_id for other in others]

    async def _redraw(self, case: Case, changed: list[str]) -> None:
        """Where the ``changed`` strategies are shown, drawn again once, as they all stand."""
        strategies = await self._p.remediations.list_for_case(case.case_id)
        offered = [
            (strategy, workflow)
            for strategy in strategies
            if (workflow := self._workflow(strategy)) is not None
        ]
        await self._p.shown.decided(case, offered, changed=changed)

    async def _execute(self, case: Case, strategy: RemediationStrategy) -> None:
        """Hand the approved workflow to the executor, report, then ask for evidence."""
        workflow = self._workflow(strategy)
        by = strategy.decided_by or "?"
        if workflow is None:
            result = ExecutionResult(
                executor=self._p.executor.name,
                status=ExecutionStatus.FAILED,
                summary=GONE.format(key=f"{strategy.workflow_id}@{strategy.version}"),
                at=self._p.clock.now(),
            )
            await self._p.remediations.record_execution(
                strategy.strategy_id, status=StrategyStatus.FAILED, result=result
            )
            await self._p.presenter.tell(case, result.summary)
            return
        request = execution_request(strategy, workflow, by=by, at=self._p.clock.now())
        result = await self._p.executor.execute(request)
        status = outcome_status(result)
        await self._p.remediations.record_execution(
            strategy.strategy_id, status=status, result=result
        )
        await self._audit_execution(case, strategy, result, by)
        if status is StrategyStatus.EXECUTED:
            await self._ask_for_evidence(case, strategy, workflow, result)
        else:
            await self._keep(case, await self._p.shown.ran(case, result, workflow))

    async def _ask_for_evidence(
        self,
        case: Case,
        strategy: RemediationStrategy,
        workflow: Workflow,
        result: ExecutionResult,
    ) -> None:
        """An evidence request: the workflow's read-only checks and what success looks like, in
        the message saying the workflow ran (``result``): one message for the click."""
        request = verification_request(strategy, workflow, turn=case.current_turn)

        def add(target: Case) -> None:
            target.evidence_requests.append(request)
            if strategy.decided_by:
                target.add_participant(strategy.decided_by)

        saved = await self._p.cases.change(case, add)
        await self._keep(saved, await self._p.shown.ran_and_ask(saved, result, workflow, request))
        await self._p.presenter.show_header(saved)

    async def _keep(self, case: Case, told: Told) -> None:
        """Keep what was said in the thread in the conversation the next turn sees."""
        await self._p.messages.add(
            ConversationMessage(
                case_id=case.case_id,
                ts=told.ts,
                author=BOT_AUTHOR,
                role=MessageRole.ASSISTANT,
                text=told.text,
                created_at=self._p.clock.now(),
            )
        )

    def _workflow(self, strategy: RemediationStrategy) -> Workflow | None:
        return self._p.catalog.get(strategy.workflow_id, strategy.version)

    async def _whisper(self, work: ClickWork, text: str) -> None:
        await self._p.presenter.whisper(
            channel=work.channel_id, user=work.user_id, text=text, thread_ts=work.thread_ts
        )

    async def _audit(
        self, case: Case, strategy: RemediationStrategy, actor: str, action: str
    ) -> None:
        """Who, when, which workflow and which parameters."""
        await self._p.audit.record(
            AuditEntry(
                team_id=case.team_id,
                case_id=case.case_id,
                actor=actor,
                action=action,
                detail={
                    "strategy_id": strategy.strategy_id,
                    "workflow_id": strategy.workflow_id,
                    "version": strategy.version,
                    "parameters": strategy.parameters,
                    "confidence": strategy.confidence,
                    "estimated_risk": strategy.estimated_risk.value,
                    "executor": self._p.executor.name,
                },
                source="slack:button",
                at=strategy.decided_at or self._p.clock.now(),
            )
        )

    async def _audit_execution(
        self, case: Case, strategy: RemediationStrategy, result: ExecutionResult, by: str
    ) -> None:
        await self._p.audit.record(
            AuditEntry(
                team_id=case.team_id,
                case_id=case.case_id,
                actor=by,
                action=f"workflow.execution_{result.status.value}",
                detail={
                    "strategy_id": strategy.strategy_id,
                    "workflow_id": strategy.workflow_id,
                    "version": strategy.version,
                    "executor": result.executor,
                    "http_status": result.http_status,
                    "summary": result.summary,
                },
                source="system",
                at=result.at,
            )
        )


def _interrupted(strategy: RemediationStrategy, user_id: str, status: StrategyStatus) -> bool:
    """This very approval was recorded, but a restart cut it short before the executor ran."""
    return (
        status is StrategyStatus.APPROVED
        and strategy.status is StrategyStatus.APPROVED
        and strategy.decided_by == user_id
        and strategy.execution is None
    )


def _answered_entry(case: Case, confirmation: PendingConfirmation) -> AuditEntry:
    """The approval recorded as the approver's answer, like a click on Yes."""
    return AuditEntry(
        team_id=case.team_id,
        case_id=case.case_id,
        actor=confirmation.answered_by or "?",
        action="confirmation.answered",
        detail={
            "confirmation_id": confirmation.confirmation_id,
            "kind": confirmation.kind.value,
            "decision": confirmation.decision.value if confirmation.decision else None,
            "state": confirmation.state.value,
            "by_approving": confirmation.prompt,
        },
        source="slack:button",
        at=confirmation.answered_at or case.updated_at,
    )


def _stale(strategy: RemediationStrategy) -> str:
    """Why a click on a decided strategy changed nothing."""
    if strategy.status is StrategyStatus.SUPERSEDED:
        return "That workflow is no longer offered (another one was approved), so nothing changed."
    by = mention(strategy.decided_by) if strategy.decided_by else "Someone"
    return f"{by} already decided on that workflow ({strategy.status.value}), so nothing changed."
