"""An alert's analysis and its remediation as the case thread shows them.

The analysis service hands over what it found (the RCA, what the tools read first, the past case
it repeats, the validated strategies) and the remediation service what people decided and what the
executor did; this draws each as its message, posts or edits it, and remembers where. Messages the
next turns' model should read come back with their words (`Told`).

An alert's arrival is one message in its thread: the case summary, then the analysis with the
workflows it offers under it, each with Approve / Reject, drawn again as a whole when one is
decided. Only where the summary has too little room left for them is the analysis a message of its
own, and only when the workflows would not fit one message with it does each follow in its own.
"""

from __future__ import annotations

from collections.abc import Sequence

from bot.slack.render.holding_back import budget_note, waiting_note
from bot.slack.render.limits import fits
from bot.slack.render.remediation import (
    analysis_record,
    execution_message,
    ran_and_ask_message,
    strategy_message,
)
from bot.thread.alerts import Told
from bot.thread.analysis import analysis_message, strategy_now
from bot.thread.header import SummaryVoice
from bot.thread.memory import Analysed, Lead, Offer, RanAndAsked
from domain.budget import Breach
from domain.case import Case
from domain.engine.present import request_card as card_of
from domain.investigation.evidence_requests import EvidenceRequest
from domain.records import PostedKind
from domain.workflows.catalog import Workflow
from domain.workflows.incident import IncidentContext
from domain.workflows.planner import RcaOutcome
from domain.workflows.remediation import ExecutionResult, RemediationStrategy

Offered = tuple[RemediationStrategy, Workflow]
"""A strategy and the catalog workflow it would run."""


class RemediationThread:
    """Posts and edits the analysis, the strategies and what became of them in a case thread."""

    def __init__(self, voice: SummaryVoice) -> None:
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
        offered: Sequence[Offered] = (),
    ) -> str:
        """The analysis (after what the tools read, opening with ``lead``) with the workflows
        ``offered`` under it, posted once under ``key``: a retry finds the message its first try
        posted and draws it again. Its ts."""
        kept = Analysed(
            outcome=outcome,
            severity=context.severity,
            catalog=catalog,
            observed=list(context.observed),
            lead=list(lead),
            strategies=[strategy.strategy_id for strategy, _ in offered],
        )
        offers = [Offer(strategy=strategy, workflow=workflow) for strategy, workflow in offered]
        rendered = analysis_message(case, kept, offers)
        apart = bool(offered) and not fits(rendered)
        if apart:  # too long for one message: each workflow follows in its own
            kept = kept.model_copy(update={"strategies": []})
            rendered = analysis_message(case, kept, offers)
        voice = self._voice
        at = await voice.ts_of(case, PostedKind.REPLY, key)
        top = await voice.ts_of(case, PostedKind.HEADER, "")
        joined = await voice.join_header(case, kept, offers) if at in (None, top) else ""
        if joined:
            at = joined
            await voice.remember(case, PostedKind.REPLY, at, key, body=kept)
        elif at is None or at == top:
            at = await voice.post_kept(case, rendered, PostedKind.REPLY, key, body=kept)
        else:
            await voice.replace(case, at, rendered)
        for strategy, workflow in offered:
            if apart:
                await self.offer(case, strategy, workflow, total=len(offered))
            else:
                await voice.remember(case, PostedKind.STRATEGY, at, strategy.strategy_id, body=kept)
        return at

    async def offer(
        self, case: Case, strategy: RemediationStrategy, workflow: Workflow, *, total: int
    ) -> None:
        """One strategy of ``total`` with its Approve / Reject buttons, remembered for a click."""
        rendered = strategy_message(strategy, workflow, total=total)
        await self._voice.post_kept(case, rendered, PostedKind.STRATEGY, strategy.strategy_id)

    async def decided(
        self, case: Case, strategies: Sequence[Offered], *, changed: Sequence[str]
    ) -> None:
        """Draw again where the ``changed`` strategies were posted, each of ``strategies`` (the
        case's, as they stand now) as it stands: the analysis they were offered under, once, or
        a strategy's own message (who decided what, no buttons); nothing where none was."""
        current = {strategy.strategy_id: (strategy, workflow) for strategy, workflow in strategies}
        top = await self._voice.ts_of(case, PostedKind.HEADER, "")
        redrawn: set[str] = set()
        for strategy_id in changed:
            if strategy_id not in current:
                continue
            ts, body = await self._voice.kept_at(case, PostedKind.STRATEGY, strategy_id)
            if not ts or ts in redrawn:
                continue
            redrawn.add(ts)
            if isinstance(body, Analysed) and all(s in current for s in body.strategies):
                pairs = [current[offered] for offered in body.strategies]
                offers = [Offer(strategy=strategy, workflow=flow) for strategy, flow in pairs]
                if ts == top:  # under the case summary: drawn with it
                    await self._voice.show_header(case, offers=offers)
                    continue
                rendered = analysis_message(case, body, offers)
            else:
                rendered = strategy_now(case, *current[strategy_id], total=0)
            await self._voice.surface.update(channel=case.channel_id, ts=ts, message=rendered)

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
