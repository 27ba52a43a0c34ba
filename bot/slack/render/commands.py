"""Answers to `/fm` subcommands (ephemeral unless they post into a case thread)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from slack_sdk.models.blocks import Block

from bot.slack.ids import ActionId, CaseValue, action_id
from bot.slack.render.case.header import STATUS_LABELS, case_header_message, case_label
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
from bot.slack.render.text import code, escape, shorten
from domain.budget import LLMSpend
from domain.case import Case
from domain.knowledge import KnowledgeResult, ToolStatus
from domain.people import named
from domain.tools.runs import run_line

HELP = """*FaultMaven* pairs with you during incidents; one thread is one case.
• Mention me in a channel to open a case; the thread is the case, no need to mention me again.
• Use the *Investigate* message shortcut on any message (an alert, a report) to open a case on it.
• Upload logs, configs or command output into the case thread: I read them at once.
• Alertmanager alerts open cases in the alert channel: I analyse each one and offer remediation \
workflows from the catalog; nothing runs until someone working on the case clicks *Approve*.
*Commands*
• `/fm help` — this help
• `/fm cases` — open cases in this workspace
• `/fm status <case>` — where a case stands (e.g. `/fm status FM-7K3Q`); alone, this channel's \
open cases. Slack runs no command inside a thread: there, use the *Case status* message shortcut
• `/fm close <case>` — ask to close a case (someone confirms in its thread)
• `/fm score <case> [--force]` — grade a finished case (`--force`: grade it again)
• `/fm scores [--below N]` — recent scores (only those below N)
• `/fm calibration [--last N]` — how often stated root causes were right, by confidence and \
model, over the last N finished cases (default 100)
• `/fm kb search <query>` — search the knowledge base and your runbooks
• `/fm kb add` — add a personal runbook"""
MAX_HIT_CHARS = 280


@dataclass(frozen=True)
class CaseLink:
    """A case and the link to its thread (None when Slack could not make one)."""

    case: Case
    link: str | None
    spend: LLMSpend | None = None
    """What the model cost the case so far (not shown when unknown or nothing)."""


def notice(text: str) -> SlackMessage:
    """A one-paragraph answer."""
    return message(sections(text), text=text)


def help_message(problem: str | None = None) -> SlackMessage:
    """Usage, optionally after saying what was wrong with the command."""
    blocks = sections(f"⚠️ {escape(problem)}") if problem else []
    return message([*blocks, *sections(HELP)], text=problem or "FaultMaven help")


def case_line(item: CaseLink) -> str:
    case = item.case
    name = case_label(case.short_id, case.case_id)
    title = escape(shorten(case.title or "untitled", 120))
    shown = f"<{item.link}|{name}>" if item.link else code(name)
    line = f"{shown} · {STATUS_LABELS[case.status]} · {title}"
    if item.spend is not None and item.spend.calls:
        line += f" · 🪙 {item.spend.short()}"
    return line


def case_list(cases: Sequence[CaseLink], *, heading: str = "Open cases") -> SlackMessage:
    """Cases with links to their threads."""
    if not cases:
        return notice(f"*{heading}:* none right now. Mention me in a channel to open one.")
    text = f"*{heading} ({len(cases)}):*\n" + bullets(case_line(item) for item in cases)
    return message(sections(text), text=f"{heading}: {len(cases)}")


def channel_cases(cases: Sequence[CaseLink], *, more: bool = False) -> SlackMessage:
    """A channel's open cases, short, each with a button that shows its status."""
    listed = case_list(cases, heading="Open cases in this channel")
    buttons = [
        button(
            f"📋 {case_label(item.case.short_id, item.case.case_id)}",
            action_id=action_id(ActionId.CASE_STATUS, item.case.case_id),
            value=CaseValue(case_id=item.case.case_id).dump(),
        )
        for item in cases
    ]
    rest = context("More are open here: `/fm cases` lists them all.") if more else []
    return message([*listed.blocks, *rest, *actions(buttons)], text=listed.text)


def case_status(item: CaseLink) -> SlackMessage:
    """The case header (without its buttons), what the model cost, and a link to the thread."""
    head = case_header_message(item.case)
    blocks = [b for b in head.blocks if b.to_dict()["type"] != "actions"]
    if item.spend is not None:
        blocks += context(f"🪙 Model use: {item.spend.sentence()}")
    blocks += tools_run(item.case)
    if item.link:
        blocks += context(f"<{item.link}|Open the case thread>")
    return message(blocks, text=head.text)


def tools_run(case: Case) -> list[Block]:
    """What the case asked of the team's tools, one line per run (nothing when none)."""
    lines = [escape(named(run_line(run), "<@{}>")) for run in case.tool_runs]
    return context("🔧 *Tools run:*\n" + "\n".join(lines)) if lines else []


def kb_results(query: str, results: Sequence[KnowledgeResult]) -> SlackMessage:
    """Knowledge-base hits with their citations."""
    blocks: list[Block] = [header(f"🔍 {query}")]
    hits = [chunk for result in results for chunk in result.chunks]
    failures = [r.error for r in results if r.status is ToolStatus.ERROR and r.error]
    for chunk in hits:
        excerpt = escape(shorten(chunk.text, MAX_HIT_CHARS))
        blocks += sections(f"{code(chunk.citation.label())}\n>{excerpt}")
    if not hits:
        blocks += sections("Nothing in the knowledge base or your runbooks matches that.")
    blocks += context(*(f"⚠️ {escape(f)}" for f in failures))
    return message(blocks, text=f"Knowledge base: {len(hits)} hit(s) for {query}")
