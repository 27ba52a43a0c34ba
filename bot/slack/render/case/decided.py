"""A question once decided, in one line: who did what, and when ("✅ alice resolved it 18:31").

The question's words (the problem statement, the root cause, the fix) are in the summary and in
the answer above it; the line says only the decision, in the words of what it did.
"""

from __future__ import annotations

from datetime import datetime

from bot.slack.render.message import SlackMessage, context, message, sections
from bot.slack.render.text import escape, shorten
from domain.lifecycle.confirmations import (
    ConfirmationKind,
    ConfirmationState,
    Decision,
    DeliverablesPayload,
    PendingConfirmation,
    StatusChangePayload,
)
from domain.lifecycle.special_states import DocumentType
from domain.lifecycle.status import CaseStatus
from domain.people import mention

ICONS = {ConfirmationState.ACCEPTED: "✅", ConfirmationState.REJECTED: "❌"}
DONE: dict[ConfirmationKind, dict[Decision, str]] = {
    ConfirmationKind.PROBLEM_STATEMENT: {
        Decision.YES: "confirmed the problem",
        Decision.NO: "corrected the problem statement",
    },
    ConfirmationKind.PATH_CHOICE: {
        Decision.YES: "chose to mitigate first",
        Decision.NO: "chose to find the root cause first",
    },
    ConfirmationKind.REFUTATION: {
        Decision.YES: "confirmed the evidence rules it out",
        Decision.NO: "disputed the evidence",
        Decision.UNSURE: "will verify the evidence",
    },
    ConfirmationKind.SOLUTION_APPLIED: {
        Decision.YES: "applied it",
        Decision.NO: "has not applied it yet",
    },
    ConfirmationKind.SOLUTION_VERIFIED: {
        Decision.YES: "confirmed it is fixed",
        Decision.NO: "said it is not fixed",
    },
}
"""What a decision did, by kind of question."""
STATUS_DONE: dict[CaseStatus, dict[Decision, str]] = {
    CaseStatus.RESOLVED: {Decision.YES: "resolved it", Decision.NO: "kept it open"},
    CaseStatus.CLOSED: {Decision.YES: "closed it", Decision.NO: "kept it open"},
    CaseStatus.INVESTIGATING: {
        Decision.YES: "started the investigation",
        Decision.NO: "did not start an investigation",
    },
}
DOCUMENTS = {
    DocumentType.INCIDENT_REPORT: "the case report",
    DocumentType.POST_MORTEM: "the post-mortem",
    DocumentType.RUNBOOK: "the runbook",
    DocumentType.CHAT_SUMMARY: "the summary",
}
REPLACED_CHARS = 80


def decided_message(confirmation: PendingConfirmation) -> SlackMessage:
    """The question, decided: one line, no buttons."""
    text = decided_line(confirmation)
    return message(sections(text), text=text)


def decided_line(confirmation: PendingConfirmation) -> str:
    """``✅ <@U1> resolved it 18:31``: who, what the decision did, and when."""
    icon = ICONS.get(confirmation.state, "☑️")
    who = mention(confirmation.answered_by) if confirmation.answered_by else "Someone"
    when = f" {_time(confirmation.answered_at)}" if confirmation.answered_at else ""
    return f"{icon} {who} {_done(confirmation)}{when}"


def _done(confirmation: PendingConfirmation) -> str:
    decision = confirmation.decision
    if decision is None:
        return f"marked it {confirmation.state.value}"
    payload = confirmation.payload
    if isinstance(payload, StatusChangePayload):
        done = STATUS_DONE.get(payload.to_status, {}).get(decision)
    elif isinstance(payload, DeliverablesPayload):
        done = _documents(payload, decision)
    else:
        done = DONE.get(confirmation.kind, {}).get(decision)
    return done or f"answered {decision.value}"


def _documents(payload: DeliverablesPayload, decision: Decision) -> str:
    names = [DOCUMENTS.get(d, d.value.replace("_", " ")) for d in payload.documents]
    listed = names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"
    return f"asked for {listed}" if decision is Decision.YES else f"did not want {listed}"


def _time(moment: datetime) -> str:
    """Shown in each reader's own time zone; the fallback says UTC."""
    return f"<!date^{int(moment.timestamp())}^{{time}}|{moment:%H:%M} UTC>"


def replaced_message(prompt: str) -> SlackMessage:
    """A question that no longer applies, in one line."""
    text = f"~{escape(shorten(prompt, REPLACED_CHARS))}~"
    blocks = context(f"{text} _no longer applies: a newer question replaced it_")
    return message(blocks, text=f"(no longer applies) {shorten(prompt, REPLACED_CHARS)}")
