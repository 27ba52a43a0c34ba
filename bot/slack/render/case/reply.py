"""A turn's reply: the answer, evidence request cards, hypotheses, root cause, fixes, sources."""

from __future__ import annotations

from slack_sdk.models.blocks import Block

from bot.slack.ids import ActionId, RequestValue, action_id
from bot.slack.render.case.feedback import feedback_blocks
from bot.slack.render.case.runnable import commands_text, unchecked
from bot.slack.render.case.tools import tool_cards
from bot.slack.render.markdown import to_mrkdwn
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
from bot.slack.render.text import code, code_block, escape, humanize, percent, shorten
from domain.engine.view import (
    EscalationView,
    HypothesisView,
    ReplyKind,
    RequestCard,
    RootCauseView,
    SolutionView,
    TurnReply,
)
from domain.investigation.evidence_requests import OPEN_STATUSES, EvidenceStatus
from domain.knowledge import Citation

MAX_CITATIONS = 8
REQUEST_CLOSED = {
    EvidenceStatus.COMPLETE: "✅ Received",
    EvidenceStatus.BLOCKED: "🚫 Marked as not obtainable",
}
"""What a request card says instead of its button once it is no longer open."""
MAX_HYPOTHESES = 5
SOLUTION_STATES = {"attested": "applied; people say it works, not verified by evidence"}
"""How a solution's state reads where the plain word would overstate it."""


def reply_message(reply: TurnReply, *, case_id: str) -> SlackMessage:
    """Everything a turn says, except its confirmation prompts (posted on their own)."""
    blocks: list[Block] = []
    blocks += sections(_answer(reply))
    blocks += context(*(f"ℹ️ {escape(note)}" for note in reply.notices))
    shown = {card.request_id for card in reply.evidence_requests}
    for card in reply.evidence_requests:
        blocks += request_card(card, case_id=case_id)
        attached = [run for run in reply.tool_runs if run.request_id == card.request_id]
        blocks += tool_cards(attached, case_id=case_id)
    alone = [run for run in reply.tool_runs if run.request_id not in shown]
    blocks += tool_cards(alone, case_id=case_id)
    if reply.kind is ReplyKind.ANSWER:
        blocks += _conclusions(reply)
        blocks += feedback_blocks(reply.root_cause, case_id=case_id)
    for solution in reply.solutions:
        blocks += [divider(), *sections(solution_text(solution))]
    if reply.escalation is not None:
        blocks += [divider(), *sections(escalation_text(reply.escalation))]
    blocks += context(citations_text(reply.citations))
    return message(blocks, text=_answer(reply))


def _answer(reply: TurnReply) -> str:
    text = to_mrkdwn(reply.text.strip()) or "…"
    return f"⚠️ {text}" if reply.kind is ReplyKind.FAULT else text


def _conclusions(reply: TurnReply) -> list[Block]:
    blocks: list[Block] = []
    if reply.hypotheses:
        blocks += [divider(), *sections(hypotheses_text(reply.hypotheses))]
    if reply.root_cause is not None:
        blocks += [divider(), *sections(root_cause_text(reply.root_cause))]
    elif reply.working_conclusion is not None:
        conclusion = reply.working_conclusion
        blocks += context(
            f"*Likely cause so far* ({percent(conclusion.confidence)}): "
            f"{escape(conclusion.statement)}"
        )
    return blocks


def request_card(card: RequestCard, *, case_id: str) -> list[Block]:
    """An evidence request: why, how to get it safely, where to look, and a way out."""
    lines = [
        f"*📋 {escape(card.label)}* · _{humanize(card.criticality.value)}_",
        f"*Why:* {escape(card.description)}",
    ]
    if card.prerequisites:
        lines.append(f"*First:* {escape('; '.join(card.prerequisites))}")
    blocks: list[Block] = [divider(), *sections("\n".join(lines))]
    guessed = unchecked(card.commands)
    checked = [c for c in card.commands if c not in guessed]
    if checked:
        blocks += sections(f"*Run (read-only):*\n{code_block(checked)}")
    if guessed:
        blocks += sections(
            f"*Not checked, looks read-only — run it if you agree:*\n{code_block(guessed)}"
        )
    where = _where_to_look(card)
    if where:
        blocks += sections(where)
    if card.status not in OPEN_STATUSES:  # answered, or marked as not obtainable
        return [*blocks, *context(f"_{REQUEST_CLOSED.get(card.status, 'No longer needed')}._")]
    value = RequestValue(case_id=case_id, request_id=card.request_id).dump()
    cant = button(
        "🚫 Can't get this",
        action_id=action_id(ActionId.CANT_GET, card.request_id),
        value=value,
    )
    return [*blocks, *actions([cant])]


def _where_to_look(card: RequestCard) -> str:
    lines = []
    if card.file_locations:
        lines.append("*Files:* " + ", ".join(code(path) for path in card.file_locations))
    if card.ui_locations:
        lines.append("*In the UI:* " + escape("; ".join(card.ui_locations)))
    if card.alternatives:
        lines.append("*Alternatives:*\n" + bullets(escape(a) for a in card.alternatives))
    if card.expected_output:
        lines.append(f"*What to look for:* {escape(card.expected_output)}")
    return "\n".join(lines)


def hypotheses_text(hypotheses: list[HypothesisView]) -> str:
    """Hypotheses still in play, most likely first."""
    shown = hypotheses[:MAX_HYPOTHESES]
    lines = [
        f"{percent(h.likelihood)} · {escape(shorten(h.statement, 300))} "
        f"_({humanize(h.status.value).lower()})_"
        for h in shown
    ]
    more = len(hypotheses) - len(shown)
    extra = f"\n…and {more} more" if more > 0 else ""
    return "*🧪 Hypotheses*\n" + bullets(lines) + extra


def root_cause_text(root: RootCauseView) -> str:
    """The root cause with its confidence and the evidence for and missing."""
    lines = [
        f"*🎯 Root cause* · {humanize(root.confidence_level.value)} "
        f"({percent(root.confidence_score)}: {escape(root.rubric)})",
        escape(root.root_cause),
    ]
    if root.mechanism:
        lines.append(f"_How:_ {escape(root.mechanism)}")
    if root.supporting_evidence:
        items = (escape(e.summary) for e in root.supporting_evidence)
        lines.append("*Supporting evidence:*\n" + bullets(items))
    if root.missing_evidence:
        lines.append("*Missing evidence:*\n" + bullets(escape(m) for m in root.missing_evidence))
    if root.alternative_explanations:
        alternatives = (escape(a) for a in root.alternative_explanations)
        lines.append("*Also possible:*\n" + bullets(alternatives))
    if root.caveats:
        lines.append("*Caveats:* " + escape("; ".join(root.caveats)))
    return "\n".join(lines)


def solution_text(solution: SolutionView) -> str:
    """A mitigation or fix: what to do, commands (already checked), risks."""
    kind = "🩹 Mitigation" if solution.is_mitigation else "🛠️ Fix"
    state = SOLUTION_STATES.get(solution.state, solution.state)
    lines = [f"*{kind}: {escape(solution.title)}* _({state})_"]
    for label, text in (("Now", solution.immediate_action), ("Long term", solution.longterm_fix)):
        if text and text != solution.title:  # a fix people described is its own title
            lines.append(f"*{label}:* {escape(text)}")
    if solution.implementation_steps:
        steps = (f"{n}. {escape(s)}" for n, s in enumerate(solution.implementation_steps, 1))
        lines.append("\n".join(steps))
    if solution.commands:
        lines.append(commands_text(solution.commands))
    if solution.risks:
        lines.append("*Risks:* " + escape("; ".join(solution.risks)))
    return "\n".join(lines)


def escalation_text(escalation: EscalationView) -> str:
    """Degraded mode: why, the options (answer by writing one), what to share."""
    advice = "I recommend escalating now." if escalation.recommended else "Options:"
    lines = [
        f"*⚠️ We're stuck* ({humanize(escalation.mode.value).lower()}): {escape(escalation.reason)}",
        advice,
        bullets(escape(option.value) for option in escalation.options),
    ]
    if escalation.share:
        lines.append("*To share when escalating:*\n" + bullets(escape(s) for s in escalation.share))
    return "\n".join(lines)


def citations_text(citations: list[Citation]) -> str:
    """Sources line: `app.log:1045 (14:32:15Z)`, `Runbook › Section`."""
    if not citations:
        return ""
    labels = list(dict.fromkeys(c.label() for c in citations))
    shown = labels[:MAX_CITATIONS]
    more = f" (+{len(labels) - len(shown)} more)" if len(labels) > len(shown) else ""
    return "📎 Sources: " + " · ".join(code(label) for label in shown) + more
