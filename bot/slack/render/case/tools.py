"""Tool runs in the thread: the exact call with Run it / Skip, and one line per result."""

from __future__ import annotations

from collections.abc import Sequence

from slack_sdk.models.blocks import Block

from bot.slack.ids import ActionId, ToolRunValue, action_id
from bot.slack.render.message import SlackMessage, actions, button, context, message, sections
from bot.slack.render.text import code, escape, shorten
from domain.engine.inputs import ToolRunResult
from domain.engine.view import ToolRunCard
from domain.tools.audit import ToolOutcome
from domain.tools.runs import TRUST, ToolRunStatus

ARGUMENTS_SHOWN = 600
OUTCOME_MARK = {
    ToolOutcome.OK: "✅",
    ToolOutcome.NO_DATA: "∅",
    ToolOutcome.ERROR: "⚠️",
    ToolOutcome.REFUSED: "🚫",
}


def tool_card(card: ToolRunCard, *, case_id: str) -> list[Block]:
    """The call as it will run, why, and Run it / Skip while it waits; else where it stands."""
    call = f"{card.server} {card.tool} {shorten(card.arguments, ARGUMENTS_SHOWN)}"
    lines = [f"*🔧 Look for myself:* {code(call)}"]
    if card.reason:
        lines.append(f"*Why:* {escape(card.reason)}")
    blocks = sections("\n".join(lines))
    if card.status is ToolRunStatus.PENDING:
        value = ToolRunValue(case_id=case_id, run_id=card.run_id).dump()
        run = button(
            "▶ Run it",
            action_id=action_id(ActionId.RUN_TOOL, card.run_id),
            value=value,
            style="primary",
        )
        skip = button("Skip", action_id=action_id(ActionId.SKIP_TOOL, card.run_id), value=value)
        return [*blocks, *actions([run, skip])]
    return [*blocks, *context(_standing(card))]


def _standing(card: ToolRunCard) -> str:
    if card.status is ToolRunStatus.SKIPPED:
        return "_Skipped._"
    who = "trusted server" if card.consented_by == TRUST else f"<@{card.consented_by}>"
    if card.status is ToolRunStatus.APPROVED:
        return f"_Running ({escape(who)})…_"
    mark = OUTCOME_MARK.get(card.outcome or ToolOutcome.ERROR, "")
    return f"_{mark} Ran ({escape(who)}): {escape(card.sentence)} {escape(card.citation)}_"


def tool_cards(cards: Sequence[ToolRunCard], *, case_id: str) -> list[Block]:
    """Several cards, in order."""
    return [block for card in cards for block in tool_card(card, case_id=case_id)]


def results_lead(
    results: Sequence[ToolRunResult], *, sizes: Sequence[int] | None = None
) -> SlackMessage:
    """One line per finished run, opening the answer that reads them (``sizes``: how much of
    each reply was kept, when the results no longer carry their text)."""
    kept = sizes if sizes is not None else [len(r.text.encode()) for r in results]
    lines = [
        f"{OUTCOME_MARK[r.outcome]} {_result_line(r, n)}"
        for r, n in zip(results, kept, strict=True)
    ]
    text = "\n".join(lines)
    return message(sections(text), text=text)


def _result_line(result: ToolRunResult, size: int) -> str:
    """The sentence, how much was kept, and what the answer cites."""
    size = size if result.outcome is ToolOutcome.OK else 0
    kept = f" ({size / 1024:.1f} KB kept as evidence)" if size else ""
    return f"{escape(result.sentence)}{kept} · {code(result.citation)}"
