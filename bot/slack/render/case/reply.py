"""A turn's reply, the answer first and short.

It opens with what it concludes or needs (its prose, about 600 characters), then what the files
just shared show (at most three findings, `uploads.py`), the evidence it asks for and the tool
runs, the root cause in two lines with its confidence, the mitigation with its command and the
permanent fix in a line. The rest (the whole prose, every finding, the hypotheses, the evidence
for and missing, the alternatives and caveats, the steps and risks) is behind **Details**, a
modal (`details.py`); an answer that has no such button shows the rest under it.
"""

from __future__ import annotations

from collections.abc import Sequence

from slack_sdk.models.blocks import Block, ButtonElement

from bot.slack.ids import ActionId, DetailsValue, RequestValue, action_id
from bot.slack.render.case.details import (
    confidence_words,
    hypotheses_text,
    root_cause_text,
    solution_state,
    solution_text,
)
from bot.slack.render.case.feedback import feedback_blocks
from bot.slack.render.case.runnable import commands_text, unchecked
from bot.slack.render.case.steps import mitigation_blocks
from bot.slack.render.case.stuck import stuck_blocks
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
from bot.slack.render.text import code, code_block, escape, humanize, percent, shorten, split_text
from domain.engine.view import (
    ReplyKind,
    RequestCard,
    RootCauseView,
    SolutionView,
    TurnReply,
)
from domain.investigation.evidence_requests import OPEN_STATUSES, EvidenceStatus
from domain.knowledge import Citation

ANSWER_CHARS = 600
"""The prose an answer opens with; the rest of it is in its Details."""
CAUSE_CHARS = 300
HOW_CHARS = 200
RISK_CHARS = 160
SUGGESTION_CHARS = 80
MAX_SUGGESTIONS = 3
MAX_CITATIONS = 8
REQUEST_CLOSED = {
    EvidenceStatus.COMPLETE: "✅ Received",
    EvidenceStatus.BLOCKED: "🚫 Marked as not obtainable",
}
"""What a request card says instead of its button once it is no longer open."""
DETAILS_LABEL = "🔍 Details"


def reply_message(
    reply: TurnReply,
    *,
    case_id: str,
    lead: Sequence[SlackMessage] = (),
    details: DetailsValue | None = None,
    more: bool = False,
) -> SlackMessage:
    """Everything a turn says, except its confirmation prompts (posted on their own): the
    answer, then ``lead`` (what the files or tool runs it read show), then the rest, short.

    ``details``: where the whole reply is kept, for its Details button (without it, the rest is
    shown under the answer); ``more``: the lead has more than it shows (a file's other findings).
    """
    opening, cut = answer_text(reply, short=details is not None)
    blocks: list[Block] = [*sections(opening)]
    for part in lead:
        blocks += [divider(), *part.blocks] if blocks else list(part.blocks)
    blocks += context(*(f"ℹ️ {escape(note)}" for note in reply.notices))
    blocks += context(suggestions_text(reply.suggestions))
    shown = {card.request_id for card in reply.evidence_requests}
    for card in reply.evidence_requests:
        blocks += request_card(card, case_id=case_id)
        attached = [run for run in reply.tool_runs if run.request_id == card.request_id]
        blocks += tool_cards(attached, case_id=case_id)
    alone = [run for run in reply.tool_runs if run.request_id not in shown]
    blocks += tool_cards(alone, case_id=case_id)
    full = details is None  # nowhere to open the rest from: shown here
    if reply.kind is ReplyKind.ANSWER:
        blocks += _full_conclusions(reply) if full else _conclusions(reply)
        blocks += feedback_blocks(reply.root_cause, case_id=case_id)
    if full:
        for solution in reply.solutions:
            blocks += [divider(), *sections(solution_text(solution))]
    elif reply.solutions:
        lines = "\n".join(solution_line(solution) for solution in reply.solutions)
        blocks += [divider(), *sections(lines)]
    blocks += mitigation_blocks(reply.solutions, reply.recorded, case_id=case_id)  # to act on
    blocks += stuck_blocks(reply.escalation, case_id=case_id)  # said once, then in a line
    # A source the answer's own words already cite is not listed again under it.
    unsaid = [c for c in reply.citations if c.label() not in reply.text]
    blocks += context(citations_text(unsaid))
    if details is not None and (cut or more or has_details(reply)):
        blocks += actions([details_button(details)])
    return message(blocks, text=opening)


def answer_text(reply: TurnReply, *, short: bool) -> tuple[str, bool]:
    """The prose the answer opens with (``short``: its first ~600 characters, cut between
    sentences), and whether it was cut."""
    text = to_mrkdwn(reply.text.strip()) or "…"
    cut = False
    if short and len(text) > ANSWER_CHARS:
        text, cut = split_text(text, ANSWER_CHARS)[0].rstrip() + " …", True
    return (f"⚠️ {text}" if reply.kind is ReplyKind.FAULT else text), cut


def details_button(details: DetailsValue) -> ButtonElement:
    """Opens the whole reply in a modal."""
    return button(DETAILS_LABEL, action_id=action_id(ActionId.DETAILS), value=details.dump())


def has_details(reply: TurnReply) -> bool:
    """Whether the reply says more than its short form shows."""
    if reply.kind is ReplyKind.ANSWER:
        root = reply.root_cause
        if reply.hypotheses and (root is not None or reply.working_conclusion is not None):
            return True
        if len(reply.hypotheses) > 1:
            return True
        if root is not None and (
            root.supporting_evidence
            or root.missing_evidence
            or root.alternative_explanations
            or root.caveats
            or len(root.mechanism) > HOW_CHARS
            or len(root.root_cause) > CAUSE_CHARS
        ):
            return True
    return any(_solution_has_more(s) for s in reply.solutions)


def _solution_has_more(solution: SolutionView) -> bool:
    if not solution.is_mitigation:
        return bool(solution.longterm_fix or solution.implementation_steps or solution.commands)
    said = {solution.title, None, ""}
    return bool(
        solution.implementation_steps
        or solution.immediate_action not in said
        or solution.longterm_fix not in said
        or len("; ".join(solution.risks)) > RISK_CHARS
    )


def _full_conclusions(reply: TurnReply) -> list[Block]:
    blocks: list[Block] = []
    if reply.hypotheses:
        blocks += [divider(), *sections(hypotheses_text(reply.hypotheses))]
    if reply.root_cause is not None:
        return [*blocks, divider(), *sections(root_cause_text(reply.root_cause))]
    return blocks + _conclusions(reply.model_copy(update={"hypotheses": []}))


def _conclusions(reply: TurnReply) -> list[Block]:
    if reply.root_cause is not None:
        return [divider(), *sections(root_cause_lines(reply.root_cause))]
    if reply.working_conclusion is not None:
        conclusion = reply.working_conclusion
        return context(
            f"*Likely cause so far* ({percent(conclusion.confidence)}): "
            f"{escape(shorten(conclusion.statement, CAUSE_CHARS))}"
        )
    if reply.hypotheses:
        top = reply.hypotheses[0]
        others = len(reply.hypotheses) - 1
        more = f" · {others} more in Details" if others else ""
        return context(
            f"🧪 Leading hypothesis ({percent(top.likelihood)}): "
            f"{escape(shorten(top.statement, CAUSE_CHARS))}{more}"
        )
    return []


def root_cause_lines(root: RootCauseView) -> str:
    """The root cause in two lines: what, with its confidence; how."""
    lines = [
        f"*🎯 Root cause* ({confidence_words(root)}): "
        f"{escape(shorten(root.root_cause, CAUSE_CHARS))}"
    ]
    if root.mechanism:
        lines.append(f"_How:_ {escape(shorten(root.mechanism, HOW_CHARS))}")
    return "\n".join(lines)


def solution_line(solution: SolutionView) -> str:
    """A mitigation with its commands (and its risk, in a line); a fix in one line (its steps
    are in the Details)."""
    state = solution_state(solution)
    if not solution.is_mitigation:
        return f"*🛠️ Then, the fix:* {escape(shorten(solution.title, CAUSE_CHARS))} _({state})_"
    lines = [f"*🩹 Mitigation: {escape(solution.title)}* _({state})_"]
    if solution.commands:
        lines.append(commands_text(solution.commands))
    if solution.risks:
        lines.append("*Risk:* " + escape(shorten("; ".join(solution.risks), RISK_CHARS)))
    return "\n".join(lines)


def suggestions_text(suggestions: Sequence[str]) -> str:
    """Short, safe things to try right away, in one line."""
    shown = [to_mrkdwn(shorten(s, SUGGESTION_CHARS)) for s in suggestions[:MAX_SUGGESTIONS]]
    return "💡 *Try now:* " + " · ".join(shown) if shown else ""


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


def citations_text(citations: list[Citation]) -> str:
    """Sources in one line, each file named once: `app.log` :36-43, :50 · `Runbook › Section`."""
    if not citations:
        return ""
    by_source: dict[str, list[str]] = {}
    for citation in citations:
        places = by_source.setdefault(citation.source, [])
        place = _place(citation)
        if place and place not in places:
            places.append(place)
    labels = [
        code(source) + (" " + ", ".join(places) if places else "")
        for source, places in by_source.items()
    ]
    shown = labels[:MAX_CITATIONS]
    more = len(labels) - len(shown)
    extra = f" (+{more} more)" if more > 0 else ""
    return "📎 " + " · ".join(shown) + extra


def _place(citation: Citation) -> str:
    """Where in its source: `:36-43`, or a section."""
    if citation.line_start is not None:
        end = citation.line_end
        lines = f"{citation.line_start}-{end}" if end and end != citation.line_start else ""
        return code(f":{lines or citation.line_start}")
    return f"› {escape(citation.section)}" if citation.section else ""
