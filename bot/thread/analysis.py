"""An alert's analysis with the workflows it offers, drawn from what was kept of it.

Drawn in its own message, or under the case summary when the alert's case shares that message with
it; each workflow as it stands when drawn: to decide (Approve / Reject), decided (who, what), or
left undecided in a finished case (no buttons).
"""

from __future__ import annotations

from collections.abc import Sequence

from bot.slack.render.message import SlackMessage, divider, message
from bot.slack.render.remediation import (
    decided_strategy_message,
    rca_message,
    strategy_message,
    undecided_strategy_message,
)
from bot.thread.compose import lead_messages, led
from bot.thread.memory import Analysed, Offer
from domain.case import Case
from domain.workflows.catalog import Workflow
from domain.workflows.remediation import RemediationStrategy, StrategyStatus


def analysis_message(case: Case, kept: Analysed, offers: Sequence[Offer]) -> SlackMessage:
    """The analysis as it was, then each workflow kept under it, as ``offers`` has it now."""
    shown = led(
        lead_messages(kept.lead, case_id=case.case_id),
        rca_message(
            kept.outcome,
            signal_severity=kept.severity,
            catalog=kept.catalog,
            observed=kept.observed,
        ),
    )
    current = {offer.strategy.strategy_id: offer for offer in offers}
    blocks = list(shown.blocks)
    for strategy_id in kept.strategies:
        offer = current[strategy_id]
        drawn = strategy_now(case, offer.strategy, offer.workflow, total=len(kept.strategies))
        blocks += [divider(), *drawn.blocks]
    return message(blocks, text=shown.text)


def strategy_now(
    case: Case, strategy: RemediationStrategy, workflow: Workflow, *, total: int
) -> SlackMessage:
    """A strategy still to decide, with its buttons (none once the case is finished); else who
    decided what."""
    if strategy.status is not StrategyStatus.PROPOSED:
        return decided_strategy_message(strategy, workflow)
    if case.is_terminal:
        return undecided_strategy_message(strategy, workflow, status=case.status.value)
    return strategy_message(strategy, workflow, total=total)
