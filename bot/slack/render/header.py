"""The living case header: the first bot message of a case thread, edited after every change."""

from __future__ import annotations

from slack_sdk.models.blocks import Block, ButtonElement

from bot.slack.ids import ActionId, CaseValue, action_id
from bot.slack.render.message import (
    SlackMessage,
    actions,
    bullets,
    button,
    context,
    header,
    message,
    sections,
)
from bot.slack.render.text import escape, humanize, percent, progress_bar, shorten
from domain.case import Case
from domain.engine.present import case_header
from domain.engine.view import CaseHeaderView
from domain.investigation.evidence_requests import open_requests
from domain.investigation.progress import InvestigationStage
from domain.lifecycle.status import CaseStatus

STATUS_LABELS = {
    CaseStatus.CONSULTING: "💬 Consulting",
    CaseStatus.INVESTIGATING: "🔎 Investigating",
    CaseStatus.RESOLVED: "✅ Resolved",
    CaseStatus.CLOSED: "🗄️ Closed",
}
STAGE_NUMBERS = {stage: number for number, stage in enumerate(InvestigationStage, start=1)}
MAX_REQUESTS_LISTED = 5


def case_label(short_id: str, case_id: str) -> str:
    """The id people type: the short id, else the internal one."""
    return short_id or case_id


def case_header_message(case: Case) -> SlackMessage:
    """The header for a case, with the buttons that make sense in its status."""
    view = case_header(case)
    labels = [r.label for r in open_requests(case.evidence_requests)]
    return header_message(view, title=case.title, open_request_labels=labels)


def header_message(
    view: CaseHeaderView, *, title: str, open_request_labels: list[str]
) -> SlackMessage:
    """The header from its view model."""
    name = case_label(view.short_id, view.case_id)
    blocks: list[Block] = [header(f"{name} · {STATUS_LABELS[view.status]}")]
    blocks += sections(_summary(view, title))
    if view.working_conclusion is not None:
        conclusion = view.working_conclusion
        blocks += sections(
            f"*Working conclusion* ({percent(conclusion.confidence)} confident): "
            f"{escape(conclusion.statement)}"
        )
    if open_request_labels:
        shown = [escape(shorten(label, 150)) for label in open_request_labels[:MAX_REQUESTS_LISTED]]
        more = len(open_request_labels) - len(shown)
        listing = bullets(shown) + (f"\n…and {more} more" if more > 0 else "")
        blocks += sections(f"*Open evidence requests ({len(open_request_labels)}):*\n{listing}")
    blocks += context(*_footnotes(view))
    blocks += actions(header_buttons(view))
    return message(blocks, text=f"Case {name}: {STATUS_LABELS[view.status]}")


def _summary(view: CaseHeaderView, title: str) -> str:
    lines = [f"*Problem:* {escape(view.problem or title or 'not stated yet')}"]
    if view.stage is not None:
        number = STAGE_NUMBERS[view.stage]
        lines.append(
            f"*Stage {number}/4:* {humanize(view.stage.value)} · "
            f"{progress_bar(view.completion)} {percent(view.completion)}"
        )
    if view.path is not None:
        lines.append(f"*Path:* {humanize(view.path.value)}")
    if view.root_cause_confidence is not None:
        lines.append(f"*Root cause confidence:* {humanize(view.root_cause_confidence.value)}")
    return "\n".join(lines)


def _footnotes(view: CaseHeaderView) -> list[str]:
    notes = [f"Case `{case_label(view.short_id, view.case_id)}`"]
    if view.pending_confirmations:
        notes.append(f"❓ {view.pending_confirmations} question(s) waiting for an answer")
    if view.degraded:
        notes.append("⚠️ Stuck: see the options in the thread")
    return [" · ".join(notes)]


def header_buttons(view: CaseHeaderView) -> list[ButtonElement]:
    """Close while the case is open; Report and Score once it is finished."""
    value = CaseValue(case_id=view.case_id).dump()
    if view.status in (CaseStatus.RESOLVED, CaseStatus.CLOSED):
        return [
            button("📋 Report", action_id=action_id(ActionId.REPORT), value=value),
            button("🏅 Score", action_id=action_id(ActionId.SCORE), value=value),
        ]
    return [button("Close case", action_id=action_id(ActionId.CLOSE_CASE), value=value)]
