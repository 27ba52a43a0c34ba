"""Confirmation prompts with their buttons, and the same messages rewritten once decided."""

from __future__ import annotations

from bot.slack.ids import ActionId, AnswerValue, action_id
from bot.slack.render.message import (
    SlackMessage,
    actions,
    button,
    confirm_dialog,
    context,
    message,
    sections,
)
from bot.slack.render.text import escape
from domain.engine.view import ConfirmationPrompt
from domain.lifecycle.confirmations import ConfirmationKind, Decision
from domain.lifecycle.status import CaseStatus

DECIDED_ICONS = {True: "✅", False: "❌"}
Label = tuple[str, str | None]
"""A button's words and Block Kit style."""
YES_NO: dict[Decision, Label] = {Decision.YES: ("✅ Yes", "primary"), Decision.NO: ("❌ No", None)}
LABELS: dict[ConfirmationKind, dict[Decision, Label]] = {
    ConfirmationKind.REFUTATION: {
        Decision.YES: ("✅ Confirm: evidence is accurate", None),
        Decision.NO: ("❌ Dispute: evidence may be wrong", None),
        Decision.UNSURE: ("🤔 Not sure: need to verify", None),
    },
    ConfirmationKind.PATH_CHOICE: {
        Decision.YES: ("🩹 Mitigate first", "primary"),
        Decision.NO: ("🔬 Root cause first", None),
    },
    ConfirmationKind.PROBLEM_STATEMENT: {
        Decision.YES: ("✅ Yes, investigate", "primary"),
        Decision.NO: ("✏️ No, correct it", None),
    },
    ConfirmationKind.SOLUTION_APPLIED: {
        Decision.YES: ("✅ Yes, it's applied", "primary"),
        Decision.NO: ("❌ Not yet", None),
    },
    ConfirmationKind.SOLUTION_VERIFIED: {
        Decision.YES: ("✅ Fixed", "primary"),
        Decision.NO: ("❌ Not fixed", None),
    },
    ConfirmationKind.DELIVERABLES: {
        Decision.YES: ("📋 Yes, write them", "primary"),
        Decision.NO: ("No, thanks", None),
    },
}
"""How each kind of question's answers read on its buttons (every other kind: Yes / No)."""
STATUS_LABELS: dict[CaseStatus, dict[Decision, Label]] = {
    CaseStatus.INVESTIGATING: {
        Decision.YES: ("🔬 Yes, investigate", "primary"),
        Decision.NO: ("❌ Not now", None),
    },
    CaseStatus.RESOLVED: {
        Decision.YES: ("✅ Resolve and write the report", "primary"),
        Decision.NO: ("Keep open", None),
    },
    CaseStatus.CLOSED: {
        Decision.YES: ("Close without a fix", "danger"),
        Decision.NO: ("Keep it open", None),
    },
}
"""A status change's buttons say what they do; closing without a fix is the dangerous one.
Resolving also writes the case report (and a runbook): one click wraps the case up."""


def label(prompt: ConfirmationPrompt, decision: Decision) -> Label:
    """The words and style of one answer's button."""
    labels = LABELS.get(prompt.kind, YES_NO)
    if prompt.kind is ConfirmationKind.STATUS_CHANGE and prompt.to_status is not None:
        labels = STATUS_LABELS.get(prompt.to_status, YES_NO)
    return labels.get(decision) or (decision.value.title(), None)


def confirmation_message(prompt: ConfirmationPrompt, *, case_id: str, final: bool) -> SlackMessage:
    """A question with its buttons; closing without a fix asks "are you sure?" (``final``; the
    resolve button is itself the wrap-up's one question). A quiet question (a minor one while
    the mitigation is the call to action) reads small, its buttons plain."""
    final = final and prompt.to_status is not CaseStatus.RESOLVED
    buttons = []
    for decision in prompt.options:
        value = AnswerValue(
            case_id=case_id, confirmation_id=prompt.confirmation_id, decision=decision
        )
        dialog = None
        if final and decision is Decision.YES:
            dialog = confirm_dialog(
                "Are you sure?",
                "This makes the case final: it can't be reopened.",
                yes="Yes, do it",
            )
        words, style = label(prompt, decision)
        style = None if prompt.quiet else style
        corrects = prompt.kind is ConfirmationKind.PROBLEM_STATEMENT and decision is Decision.NO
        action = ActionId.CORRECT if corrects else ActionId.ANSWER  # No opens a form to fix it
        buttons.append(
            button(
                words,
                # Unique in a message holding several questions (Slack requires it).
                action_id=action_id(action, f"{prompt.confirmation_id}:{decision.value}"),
                value=value.dump(),
                style=style,
                confirm=dialog,
            )
        )
    text = f"❓ {escape(prompt.prompt or 'Please confirm.')}"
    if prompt.quiet:
        quiet = f"_When you have a moment:_ {escape(prompt.prompt or 'Please confirm.')}"
        return message([*context(quiet), *actions(buttons)], text=quiet)
    blocks = [*sections(text), *actions(buttons)]
    return message(blocks, text=text)


def decided_message(note: str, *, accepted: bool) -> SlackMessage:
    """The prompt after a click: who decided what (no buttons any more)."""
    text = f"{DECIDED_ICONS[accepted]} {escape(note)}"
    return message(sections(text), text=text)


def superseded_message(prompt: str) -> SlackMessage:
    """A question that no longer applies."""
    text = f"~{escape(prompt)}~"
    blocks = [*sections(text), *context("_No longer applies: a newer question replaced it._")]
    return message(blocks, text=f"(no longer applies) {prompt}")
