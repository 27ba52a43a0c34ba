"""Post-resolution deliverables: a case report and runbook, asked for with the resolution or
offered after it; written and saved."""

from __future__ import annotations

import logging
import re
from collections.abc import Callable

from domain.base import shorten
from domain.budget import LLMSpend, report_section
from domain.case import Case
from domain.engine.context import TurnContext
from domain.engine.documents import fallback_report, fallback_runbook, problem_of
from domain.engine.prompting.prompts import PromptContext, PromptKind, render_prompt
from domain.engine.view import DocumentView
from domain.knowledge import KnowledgeBaseKind, KnowledgePort, ToolStatus
from domain.lifecycle.confirmations import DeliverablesPayload
from domain.lifecycle.special_states import DocumentType, GeneratedDocument
from domain.lifecycle.status import CaseStatus
from domain.llm import LLMPort, LLMUnavailableError, ModelTier
from domain.ports import Clock
from domain.tools.runs import report_section as tools_section

logger = logging.getLogger(__name__)

SAVE_TO = KnowledgeBaseKind.GLOBAL
TITLE_CHARS = 120
"""A document's title: its kind and the problem, cut at a word boundary."""
"""Generated documents go to the workspace's knowledge base, so the next similar case finds them."""

_WRITERS: dict[DocumentType, tuple[PromptKind, str, Callable[[Case], str]]] = {
    DocumentType.INCIDENT_REPORT: (PromptKind.CASE_REPORT, "Case report", fallback_report),
    DocumentType.POST_MORTEM: (PromptKind.CASE_REPORT, "Post-mortem", fallback_report),
    DocumentType.RUNBOOK: (PromptKind.RUNBOOK, "Runbook", fallback_runbook),
}


async def offer_deliverables(ctx: TurnContext, knowledge: KnowledgePort) -> None:
    """On resolution, offer the report, and a runbook unless a similar one exists."""
    case = ctx.case
    if case.status is not CaseStatus.RESOLVED or case.documentation.artifacts.case_report_offered:
        return
    documents, similar = await _documents_for(ctx, knowledge)
    offer = "📋 a case report (problem, timeline, evidence, root cause, fix, what was ruled out)"
    if similar is None:
        offer += " and 📖 a runbook for next time (symptoms, diagnosis, fix, prevention)"
    else:
        offer += f" (a similar runbook already exists: “{similar}”)"
    ctx.propose(
        DeliverablesPayload(documents=documents),
        f"The issue is resolved. Shall I write {offer} and save it to the knowledge base?",
    )


async def request_deliverables(ctx: TurnContext, knowledge: KnowledgePort) -> None:
    """ "Resolve and write the report": the report, and a runbook unless a similar one exists,
    are to be written now (asked for with the resolution, so not offered again)."""
    case = ctx.case
    if case.status is not CaseStatus.RESOLVED or case.documentation.artifacts.case_report_offered:
        return
    documents, _ = await _documents_for(ctx, knowledge)
    case.documentation.artifacts.requested = documents


async def _documents_for(
    ctx: TurnContext, knowledge: KnowledgePort
) -> tuple[list[DocumentType], str | None]:
    """The documents a resolved case gets (marked offered), and a similar runbook's title."""
    case = ctx.case
    artifacts = case.documentation.artifacts
    root = case.root_cause_conclusion.root_cause if case.root_cause_conclusion else ""
    similar = await knowledge.find_similar_runbook(
        team_id=case.team_id, text=f"{problem_of(case)}\n{root}".strip()
    )
    artifacts.case_report_offered = True
    artifacts.runbook_exists = similar is not None
    artifacts.runbook_offered = similar is None
    documents = [DocumentType.INCIDENT_REPORT]
    if similar is None:
        documents.append(DocumentType.RUNBOOK)
    return documents, similar[0] if similar is not None else None


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:60] or "case"


async def generate_deliverables(
    ctx: TurnContext,
    *,
    llm: LLMPort,
    knowledge: KnowledgePort,
    clock: Clock,
    spend: LLMSpend | None = None,
) -> list[DocumentView]:
    """Write each requested document (model, else template), save it, and record it; a case
    report ends with what the model cost (``spend``, up to the report)."""
    case = ctx.case
    produced: list[DocumentView] = []
    for document_type in dict.fromkeys(case.documentation.artifacts.requested):
        writer = _WRITERS.get(document_type)
        if writer is None:
            ctx.log.notes.append(f"I can't write a {document_type.value.replace('_', ' ')} yet.")
            continue
        kind, label, fallback = writer
        markdown = await _write(ctx, kind, llm=llm, clock=clock) or fallback(case)
        if spend is not None and kind is PromptKind.CASE_REPORT:
            markdown = f"{markdown.rstrip()}\n\n{report_section(spend)}"
        if kind is PromptKind.CASE_REPORT and case.tool_runs:
            markdown = f"{markdown.rstrip()}\n\n{tools_section(case.tool_runs)}"
        title = shorten(f"{label}: {problem_of(case)}", TITLE_CHARS)  # at a word boundary
        await _save(ctx, knowledge, document_type, title, markdown)
        produced.append(
            DocumentView(
                document_type=document_type,
                title=title,
                filename=f"{_slug(label)}-{case.short_id or case.case_id}.md".lower(),
                markdown=markdown,
            )
        )
    case.documentation.artifacts.requested = []
    return produced


async def _write(ctx: TurnContext, kind: PromptKind, *, llm: LLMPort, clock: Clock) -> str | None:
    """The model's markdown with unsafe commands withheld, or None to use the template."""
    if not llm.enabled:
        return None
    prompt = render_prompt(kind, PromptContext(case=ctx.case), clock=clock)
    try:
        markdown = await llm.text(
            tier=ModelTier.MAIN,
            messages=prompt.messages,
            template=prompt.template,
            template_hash=prompt.template_hash,
            case_id=ctx.case.case_id,
        )
    except LLMUnavailableError:
        logger.warning("deliverable written from template", extra={"case_id": ctx.case.case_id})
        return None
    markdown = ctx.log.safety.text(markdown.strip())
    return markdown + "\n" if markdown else None


async def _save(
    ctx: TurnContext,
    knowledge: KnowledgePort,
    document_type: DocumentType,
    title: str,
    markdown: str,
) -> None:
    case = ctx.case
    report = await knowledge.save_document(
        team_id=case.team_id,
        kb=SAVE_TO,
        scope_id=None,
        title=title,
        markdown=markdown,
        case_id=case.case_id,
    )
    if report.status is ToolStatus.ERROR:
        ctx.log.notes.append(f"I couldn't save “{title}” to the knowledge base: {report.error}.")
    documentation = case.documentation
    documentation.documents_generated.append(
        GeneratedDocument(
            document_type=document_type,
            title=title,
            content_ref=f"kb:{SAVE_TO.value}:{title}",
            generated_at=ctx.now,
            size_bytes=len(markdown.encode()),
        )
    )
    documentation.generated_at = ctx.now
    if document_type is DocumentType.RUNBOOK:
        documentation.artifacts.runbook_generated = markdown
        documentation.runbook_entry = title
    else:
        documentation.artifacts.case_report_generated = markdown
