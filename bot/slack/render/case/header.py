"""The living case summary: the first bot message of a case thread, an incident summary.

Status in plain words, severity and impact, when it started (and how long it lasted), the cause
with its confidence, the mitigation's state, the next step and who owns it, the questions
waiting, and while it is stuck, why (and the way out chosen). It is edited in place only when
what it shows changes; nothing stale stays after the case ends.
"""

from __future__ import annotations

from datetime import datetime

from slack_sdk.models.blocks import Block, ButtonElement

from bot.slack.ids import ActionId, CaseValue, action_id
from bot.slack.render.message import (
    SlackMessage,
    actions,
    button,
    context,
    header,
    message,
    sections,
)
from bot.slack.render.text import escape, percent, shorten
from domain.budget import LLMSpend
from domain.case import Case
from domain.engine.summary import Mitigation, Phase, SummaryView, summary_view
from domain.lifecycle.status import CaseStatus

STATUS_LABELS = {
    CaseStatus.CONSULTING: "💬 Being described",
    CaseStatus.INVESTIGATING: "🔎 Investigating",
    CaseStatus.RESOLVED: "✅ Resolved",
    CaseStatus.CLOSED: "🗄️ Closed",
}
"""How each status reads in lists (`/fm cases`, the App Home)."""
PHASES = {
    Phase.TRIAGE: "💬 Being described",
    Phase.FIRING: "🔥 Firing",
    Phase.ONGOING: "🔴 Ongoing",
    Phase.AFTERMATH: "🔎 Investigating after the fact",
    Phase.RESOLVED: "✅ Resolved",
    Phase.CLOSED: "🗄️ Closed",
}
MITIGATIONS = {
    Mitigation.PROPOSED: "proposed, not applied yet",
    Mitigation.APPLIED: "applied, not confirmed to work yet",
    Mitigation.ATTESTED: "applied; people say it works (not verified by evidence)",
    Mitigation.VERIFIED: "applied and verified",
}
TITLE_CHARS = 300
ASKED_BELOW = "question below"
"""How *Next* says a question waits (then the summary does not say it again)."""


def case_label(short_id: str, case_id: str) -> str:
    """The id people type: the short id, else the internal one."""
    return short_id or case_id


def case_header_message(case: Case, spend: LLMSpend | None = None) -> SlackMessage:
    """The summary of a case, with the buttons that make sense now (and what the model cost)."""
    return summary_message(summary_view(case), spend)


def summary_message(view: SummaryView, spend: LLMSpend | None = None) -> SlackMessage:
    """The summary from its view model; its footer says what the model cost, once it was used."""
    name = case_label(view.short_id, view.case_id)
    blocks: list[Block] = [header(f"{name} · {PHASES[view.phase]}")]
    blocks += sections("\n".join(_lines(view)))
    if view.waiting_questions and ASKED_BELOW not in (view.next_step or ""):
        waiting = (
            "1 question is"
            if view.waiting_questions == 1
            else f"{view.waiting_questions} questions are"
        )
        blocks += context(f"❓ {waiting} waiting for an answer below")  # *Next* names another
    if view.stuck:
        why = f" {escape(shorten(view.stuck_note, TITLE_CHARS))}" if view.stuck_note else ""
        blocks += context(f"⚠️ *Stuck:*{why} The ways out are in the thread.")
    if spend is not None and spend.calls:
        blocks += context(f"🪙 {spend.short()}")
    blocks += actions(header_buttons(view))
    return message(blocks, text=f"{name}: {PHASES[view.phase]} · {shorten(view.title, 150)}")


def _lines(view: SummaryView) -> list[str]:
    lines = [f"*{escape(shorten(view.title, TITLE_CHARS))}*"]
    facts = [f"Severity *{escape(view.severity)}*" if view.severity else "", _when(view)]
    if view.impact:
        facts.append(f"Impact: {escape(shorten(view.impact, 150))}")
    lines.append(" · ".join(fact for fact in facts if fact))
    if view.cause:
        word = "Cause" if view.cause_settled else "Likely cause"
        sure = (
            f" ({percent(view.cause_confidence)} sure)" if view.cause_confidence is not None else ""
        )
        lines.append(f"*{word}*{sure}: {escape(shorten(view.cause, TITLE_CHARS))}")
    if view.mitigation is not Mitigation.NONE and view.mitigation_title:
        state = MITIGATIONS[view.mitigation]
        lines.append(f"*Mitigation:* {escape(shorten(view.mitigation_title, 150))}: {state}")
    if view.outcome:
        lines.append(f"*Outcome:* {escape(shorten(view.outcome, TITLE_CHARS))}")
    if view.follow_up:
        lines.append(f"*Follow-up:* {escape(shorten(view.follow_up, TITLE_CHARS))}")
    if view.seen_before:
        lines.append(f"*Seen before:* looks like {escape(view.seen_before)} (a lead to check)")
    if view.next_step:
        lines.append(f"*Next:* {escape(shorten(view.next_step, TITLE_CHARS))}")
    return lines


def _when(view: SummaryView) -> str:
    if view.started_at is None:
        return ""
    if view.phase is Phase.FIRING:
        return f"🔥 Firing since {_time(view.started_at)}"
    started = f"Started {_time(view.started_at)}"
    if view.duration_minutes is not None:
        return f"{started}, lasted {_minutes(view.duration_minutes)}"
    return started


def _time(moment: datetime) -> str:
    """Shown in each reader's own time zone; the fallback says UTC."""
    stamp = int(moment.timestamp())
    return f"<!date^{stamp}^{{date_short_pretty}} {{time}}|{moment:%Y-%m-%d %H:%M} UTC>"


def _minutes(total: int) -> str:
    if total < 1:
        return "under a minute"
    hours, minutes = divmod(total, 60)
    return f"{hours} h {minutes} min" if hours else f"{minutes} min"


def header_buttons(view: SummaryView) -> list[ButtonElement]:
    """Close while the case is open; Report and Score once it is finished."""
    value = CaseValue(case_id=view.case_id).dump()
    if view.phase in (Phase.RESOLVED, Phase.CLOSED):
        return [
            button("📋 Report", action_id=action_id(ActionId.REPORT), value=value),
            button("🏅 Score", action_id=action_id(ActionId.SCORE), value=value),
        ]
    return [button("Close case", action_id=action_id(ActionId.CLOSE_CASE), value=value)]
