"""A stuck case, said once: why, and the ways out as buttons; later replies say it in a line.

The reply of the turn that found the case stuck carries the ways out (**Proceed with the best
guess**, **Escalate**, **Try another kind of explanation**, **Close the case**), each a button
that moves the case; a reply while it is still stuck refers to them in one line. Escalate shares
what to hand over as one message of its own (`handover_message`), ready to forward.
"""

from __future__ import annotations

from slack_sdk.models.blocks import Block, ButtonElement

from bot.slack.ids import ActionId, StuckValue, action_id
from bot.slack.render.message import (
    SlackMessage,
    actions,
    bullets,
    button,
    context,
    divider,
    message,
    sections,
)
from bot.slack.render.text import escape
from domain.engine.view import EscalationView
from domain.lifecycle.special_states import WayOut
from domain.people import mention

STILL_STUCK = "⚠️ Still stuck: see the options above."
"""What a reply says while the case is still stuck, once the ways out were shown."""
ICONS = {
    WayOut.BEST_GUESS: "🎯",
    WayOut.ESCALATE: "📣",
    WayOut.NEW_CATEGORY: "🔀",
    WayOut.CLOSE: "🗄️",
}


def stuck_blocks(escalation: EscalationView | None, *, case_id: str) -> list[Block]:
    """Under a reply: the case is stuck, why, and the ways out (buttons while they apply); or,
    said before, one line."""
    if escalation is None:
        return []
    if escalation.said:
        return context(STILL_STUCK)
    said = "escalat" in escalation.reason.lower()  # the reason recommends it already
    advice = "I recommend escalating now." if escalation.recommended and not said else ""
    head = f"*⚠️ We're stuck:* {escape(escalation.reason)}\n{advice or 'Pick a way out:'}"
    blocks: list[Block] = [divider(), *sections(head)]
    if escalation.open:
        primary = WayOut.ESCALATE if escalation.recommended else None
        buttons = [
            _button(way, case_id=case_id, primary=way is primary) for way in escalation.options
        ]
        blocks += actions(buttons)
    if escalation.chosen:
        blocks += context(f"↪️ {escape(escalation.chosen)}")
    return blocks


def _button(way: WayOut, *, case_id: str, primary: bool) -> ButtonElement:
    value = StuckValue(case_id=case_id, way=way).dump()
    return button(
        f"{ICONS[way]} {way.label}",
        action_id=action_id(ActionId.STUCK, way.value),
        value=value,
        style="primary" if primary else None,
    )


def handover_message(escalation: EscalationView, *, by: str, case_label: str) -> SlackMessage:
    """What to hand over when escalating a stuck case, in one message to forward."""
    head = f"*📣 {mention(by)} is escalating {escape(case_label)}.* To hand over:"
    lines = [f"Stuck: {escalation.reason}", *escalation.share]
    return message(sections(f"{head}\n{bullets(escape(line) for line in lines)}"))
