"""An answer in full: what its **Details** button opens (a modal), or what an answer that has no
such button shows under it.

The thread's answer is short (`reply.py`); here is the rest: the whole prose, every finding of
the files it read (each cited with its file), the hypotheses, the root cause with the evidence for
it and missing, the alternatives and caveats, each mitigation and fix with its steps, commands
and risks, and every source.
"""

from __future__ import annotations

from collections.abc import Sequence

from slack_sdk.models.blocks import Block, PlainTextObject
from slack_sdk.models.views import View

from bot.slack.render.case.runnable import commands_text
from bot.slack.render.case.uploads import file_details
from bot.slack.render.limits import VIEW_MAX_BLOCKS
from bot.slack.render.markdown import to_mrkdwn
from bot.slack.render.message import bullets, context, divider, sections
from bot.slack.render.text import code, escape, humanize, percent, shorten
from domain.engine.view import HypothesisView, ReplyKind, RootCauseView, SolutionView, TurnReply
from domain.knowledge import Citation, IngestReport

MODAL_TITLE = "Details"
"""A modal's title (Slack allows 24 characters)."""
MAX_HYPOTHESES = 10
SOLUTION_STATES = {"attested": "applied; people say it works, not verified by evidence"}
"""How a solution's state reads where the plain word would overstate it."""
CUT_NOTE = "_…the rest did not fit here._"


def details_modal(reply: TurnReply, reports: Sequence[IngestReport] = ()) -> View:
    """The modal the answer's Details button opens: everything the answer said, in full."""
    blocks = details_blocks(reply, reports)
    if len(blocks) > VIEW_MAX_BLOCKS:
        blocks = [*blocks[: VIEW_MAX_BLOCKS - 1], *context(CUT_NOTE)]
    if not blocks:
        blocks = sections("Nothing more than the thread shows.")
    return View(
        type="modal",
        title=PlainTextObject(text=MODAL_TITLE),
        close=PlainTextObject(text="Close"),
        blocks=blocks,
    )


def details_blocks(reply: TurnReply, reports: Sequence[IngestReport] = ()) -> list[Block]:
    """The whole answer, the files' findings and the conclusions and solutions, in full."""
    parts: list[str] = []
    text = to_mrkdwn(reply.text.strip())
    if text:
        parts.append(text)
    parts += [file_details(report) for report in reports]
    if reply.kind is ReplyKind.ANSWER:
        if reply.hypotheses:
            parts.append(hypotheses_text(reply.hypotheses))
        if reply.root_cause is not None:
            parts.append(root_cause_text(reply.root_cause))
        elif reply.working_conclusion is not None:
            conclusion = reply.working_conclusion
            parts.append(
                f"*Likely cause so far* ({percent(conclusion.confidence)}): "
                f"{escape(conclusion.statement)}"
            )
    parts += [solution_text(solution) for solution in reply.solutions]
    if reply.suggestions:
        parts.append("*💡 You could try:*\n" + bullets(escape(s) for s in reply.suggestions))
    sources = sources_text(reply.citations)
    if sources:
        parts.append(sources)
    blocks: list[Block] = []
    for part in parts:
        blocks += [*([divider()] if blocks else []), *sections(part)]
    return blocks


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


def confidence_words(root: RootCauseView) -> str:
    """``90%, verified``: the score and the rubric's level."""
    return f"{percent(root.confidence_score)}, {humanize(root.confidence_level.value).lower()}"


def root_cause_text(root: RootCauseView) -> str:
    """The root cause with its confidence and the evidence for and missing."""
    lines = [
        f"*🎯 Root cause* ({confidence_words(root)}: {escape(root.rubric)})",
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


def solution_state(solution: SolutionView) -> str:
    """How far a solution has come, in words that do not overstate it."""
    return SOLUTION_STATES.get(solution.state, solution.state)


def solution_text(solution: SolutionView) -> str:
    """A mitigation or fix: what to do, commands (already checked), risks."""
    kind = "🩹 Mitigation" if solution.is_mitigation else "🛠️ Fix"
    lines = [f"*{kind}: {escape(solution.title)}* _({solution_state(solution)})_"]
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


def sources_text(citations: list[Citation]) -> str:
    """Every source, each label in full."""
    labels = list(dict.fromkeys(c.label() for c in citations))
    return "*📎 Sources*\n" + bullets(code(label) for label in labels) if labels else ""
