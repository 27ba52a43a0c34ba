"""An alert's analysis and its remediation as the case thread shows them.

The analysis service hands over what it found (the RCA, what the tools read first, the past case
it repeats, the validated strategies) and the remediation service what people decided and what the
executor did; this draws each as its message, posts or edits it, and remembers where. Messages the
next turns' model should read come back with their words (`Told`).
"""

from __future__ import annotations

from collections.abc import Sequence

from bot.slack.render.holding_back import budget_note, waiting_note
from bot.slack.render.remediation import (
    analysis_record,
    decided_strategy_message,
    execution_message,
    ran_and_ask_message,
    rca_message,
    strategy_message,
)
from bot.thread.alerts import Told
from bot.thread.compose import lead_messages, led
from bot.thread.memory import Lead, RanAndAsked
from bot.thread.voice import ThreadVoice
from domain.budget import Breach
from domain.case import Case
from domain.engine.present import request_card as card_of
from domain.investigation.evidence_requests import EvidenceRequest
from domain.records import PostedKind
from domain.workflows.catalog import Workflow
from domain.workflows.incident import IncidentContext
from domain.workflows.planner import RcaOutcome
from domain.workflows.remediation import ExecutionResult, RemediationStrategy


class RemediationThread:
    """Posts and edits the analysis, the strategies and what became of them in a case thread."""

    def __init__(self, voice: ThreadVoice) -> None:
        self._voice = voice

    @staticmethod
    def in_words(outcome: RcaOutcome, strategies: list[RemediationStrategy]) -> str:
        """The analysis in plain words, as the conversation the next turns' model reads."""
        return analysis_record(outcome, strategies)

    async def waiting(self, case: Case, *, position: int, limit: int) -> None:
        """The analysis waits for a free slot: number ``position`` in line, ``limit`` at once."""
        await self._voice.post(case, waiting_note(position=position, limit=limit))

    async def budget_reached(self, case: Case, breach: Breach) -> None:
        """A reached budget's one sentence, instead of the analysis."""
        await self._voice.post(case, budget_note(breach))

    async def show_analysis(
        self,
        case: Case,
        outcome: RcaOutcome,
        *,
        context: IncidentContext,
        catalog: bool,
        lead: Sequence[Lead],
        key: str,
    ) -> str:
        """The analysis (after what the tools read, opening with ``lead``), posted once under
        ``key``: a retry finds the message its first try posted and draws it again. Its ts."""
        rendered = led(
            lead_messages(lead, case_id=case.case_id),
            rca_message(
                outcome,
                signal_severity=context.severity,
                catalog=catalog,
                observed=context.observed,
            ),
        )
        voice = self._voice
        at = await voice.ts_of(case, PostedKind.REPLY, key)
        if at is None:
            return await voice.post_kept(case, rendered, PostedKind.REPLY, key)
        await voice.replace(case, at, rendered)
        return at

    async def offer(
        self, case: Case, strategy: RemediationStrategy, workflow: Workflow, *, total: int
    ) -> None:
        """One strategy of ``total`` with its Approve / Reject buttons, remembered for a click."""
        rendered = strategy_message(strategy, workflow, total=total)
        await self._voice.post_kept(case, rendered, PostedKind.STRATEGY, strategy.strategy_id)

    async def decided(self, case: Case, strategy: RemediationStrategy, workflow: Workflow) -> None:
        """The strategy's message once decided (who decided what, no buttons), where it was
        posted; nothing when it never was."""
        ts = await self._voice.ts_of(case, PostedKind.STRATEGY, strategy.strategy_id)
        if ts is None:
            return
        await self._voice.surface.update(
            channel=case.channel_id, ts=ts, message=decided_strategy_message(strategy, workflow)
        )

    async def ran(self, case: Case, result: ExecutionResult, workflow: Workflow) -> Told:
        """What the executor did with the workflow."""
        said = execution_message(result, workflow)
        return Told(ts=await self._voice.post(case, said), text=said.text)

    async def ran_and_ask(
        self, case: Case, result: ExecutionResult, workflow: Workflow, request: EvidenceRequest
    ) -> Told:
        """What the executor did, then the evidence request asking whether it worked (the card
        says it once): one message for the click, kept with the request so that its card is
        drawn again once the request is answered."""
        said = ran_and_ask_message(result, workflow, card_of(request), case_id=case.case_id)
        kept = RanAndAsked(result=result, workflow=workflow, request_id=request.request_id)
        at = await self._voice.post_kept(
            case, said, PostedKind.REQUEST, request.request_id, body=kept
        )
        return Told(ts=at, text=said.text)
