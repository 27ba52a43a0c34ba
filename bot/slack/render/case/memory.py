"""Seen before: one short block naming the past case a new one looks like, and its runbook."""

from __future__ import annotations

from slack_sdk.models.blocks import SectionBlock
from slack_sdk.models.blocks.basic_components import MarkdownTextObject

from bot.slack.ids import ActionId, RunbookValue, action_id
from bot.slack.render.message import SlackMessage, button, message
from bot.slack.render.text import escape, shorten
from domain.engine.view import DocumentView
from domain.lifecycle.special_states import DocumentType
from domain.past_cases import PastCaseMatch

USE_RUNBOOK = "📚 Use its runbook"
PART_MAX = 200
"""Characters of the past case's root cause and fix shown (the link has the rest)."""


def seen_before_lead(match: PastCaseMatch, *, case_id: str, link: str | None) -> SlackMessage:
    """The past case: id and link, when, its root cause, what fixed it, how sure; its runbook."""
    name = f"<{link}|{escape(match.label)}>" if link else f"*{escape(match.label)}*"
    again = f" (also {escape(', '.join(match.also_seen))})" if match.also_seen else ""
    text = (
        f"📚 *Seen before:* this looks like {name}{again}, resolved "
        f"{match.resolved_at.date().isoformat()}.\n"
        f"Root cause: {escape(shorten(match.root_cause or 'not stated', PART_MAX))}\n"
        f"Fixed by: {escape(shorten(match.fixed_by, PART_MAX))}\n"
        f"_Match {match.score:.2f} ({how_sure(match)}): a lead to check here, not a conclusion._"
    )
    accessory = None
    if match.runbook_title:
        value = RunbookValue(case_id=case_id, past_case_id=match.case_id)
        accessory = button(
            USE_RUNBOOK, action_id=action_id(ActionId.USE_RUNBOOK), value=value.dump()
        )
    block = SectionBlock(text=MarkdownTextObject(text=text), accessory=accessory)
    return message([block], text=f"Seen before: {match.label}")


def how_sure(match: PastCaseMatch) -> str:
    """The match in words: its lead over the next past case, or that it was the only one."""
    if match.margin is None:
        return "the only close past case"
    return f"{match.margin:.2f} ahead of the next past case"


def runbook_document(match_label: str, title: str, markdown: str) -> DocumentView:
    """A past case's runbook, posted in the new case's thread as the bot posts documents."""
    return DocumentView(
        document_type=DocumentType.RUNBOOK,
        title=title,
        filename=f"runbook-{match_label.lower()}.md",
        markdown=markdown,
    )


def runbook_comment(user_id: str, match: PastCaseMatch) -> str:
    """What is written above the runbook when someone chooses to follow it."""
    return f"<@{user_id}> chose to follow the runbook of {escape(match.label)}:"
