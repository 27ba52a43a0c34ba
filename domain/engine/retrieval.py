"""Retrieval for a turn: excerpts from the case evidence and knowledge bases, and citations."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from domain.engine.context import TurnContext
from domain.engine.intents import parse_decision
from domain.engine.prompting.briefing import DEFAULT_EVIDENCE_TOKENS
from domain.investigation.hypotheses import UNDER_TEST
from domain.knowledge import (
    Citation,
    KnowledgeBaseKind,
    KnowledgePort,
    KnowledgeResult,
    RetrievedChunk,
    ToolStatus,
    still_indexing_note,
)

QUERY_NOTE_CHARS = 120
QUERY_CHARS = 600
QUERY_FINDINGS = 3


@dataclass(frozen=True)
class RetrievalSettings:
    """How much to retrieve per turn."""

    case_excerpts: int = 6
    knowledge_excerpts: int = 3
    history_for_retrieval: int = 6
    evidence_tokens: int = DEFAULT_EVIDENCE_TOKENS
    """The turn's budget for quoted evidence: files' findings and the lines around them first,
    then retrieved excerpts (``domain/engine/prompting/briefing.py``)."""
    turns_at_once: int = 4
    """Turns retrieving at the same time; the others wait their turn, first come first served.

    Retrieval is a turn's heaviest work on the event loop: when fifty cases open at once, letting
    all fifty search together makes every one of them wait for all the others' searches before
    its model call goes out; a few at a time sends the first model calls out at once.
    """


def turn_query(ctx: TurnContext, *, broad: bool = True) -> str:
    """What to search for: the new messages, the problem, the open hypotheses and the findings.

    The person's caption ("here's the log, sorry it's big") says little about what matters, so the
    search also carries what the case is about (the confirmed problem, else the proposed one, else
    the title), the hypotheses still under test, and what stood out in the files (this turn's, else
    the case's). A bare yes or no is not searched for; file names only when nothing else is known.

    Without ``broad`` (a turn without a model, whose excerpts are shown to people as they are)
    only the new messages are searched for, then file names, then the problem.
    """
    case = ctx.case
    text = ctx.turn.text if parse_decision(ctx.turn.text) is None else ""
    if not broad:
        query = text or " ".join(f.file.filename for f in ctx.turn.files)
        return (query or _problem(ctx)).strip()
    parts = [text, _problem(ctx)]
    parts.extend(h.statement for h in case.hypotheses.values() if h.status in UNDER_TEST)
    parts.extend(_finding_messages(ctx))
    query = " ".join(dict.fromkeys(" ".join(p.split()) for p in parts if p.strip()))
    if not query:
        query = " ".join(f.file.filename for f in ctx.turn.files) or case.title
    return query.strip()[:QUERY_CHARS].strip()


def _problem(ctx: TurnContext) -> str:
    case = ctx.case
    if case.problem_verification is not None and case.problem_verification.symptom_statement:
        return case.problem_verification.symptom_statement
    return case.consulting.proposed_problem_statement or case.title


def _finding_messages(ctx: TurnContext) -> list[str]:
    """The messages of the top findings: this turn's files first, else those the case keeps."""
    now = [f for upload in ctx.turn.files if upload.report for f in upload.report.findings]
    found = now or [f for file in ctx.case.uploaded_files for f in file.findings]
    return [f.changed or f.message for f in found[:QUERY_FINDINGS]]


async def retrieve(
    ctx: TurnContext, knowledge: KnowledgePort, settings: RetrievalSettings, query: str
) -> list[RetrievedChunk]:
    """Excerpts for ``query`` from the case's evidence, the person's runbooks, the KB."""
    case = ctx.case
    if not query:
        return []
    history = [m.text for m in ctx.turn.conversation[-settings.history_for_retrieval :]]
    limit = settings.knowledge_excerpts
    searches = [
        knowledge.search_personal_runbooks(
            team_id=case.team_id, user_id=ctx.actor, query=query, conversation=history, limit=limit
        ),
        knowledge.search_global(
            team_id=case.team_id, query=query, conversation=history, limit=limit
        ),
    ]
    if case.uploaded_files:  # a case's evidence is what was uploaded to it: nothing, no search
        searches.insert(
            0,
            knowledge.search_case_evidence(
                team_id=case.team_id,
                case_id=case.case_id,
                query=query,
                conversation=history,
                limit=settings.case_excerpts,
            ),
        )
    return _chunks(ctx, await asyncio.gather(*searches))


def _chunks(ctx: TurnContext, results: Sequence[KnowledgeResult]) -> list[RetrievedChunk]:
    chunks: list[RetrievedChunk] = []
    for result in results:
        if result.status is ToolStatus.ERROR:
            ctx.ignore(f"{result.kb.value} search failed: {result.error}")
        chunks.extend(result.chunks)
        ctx.log.still_indexing.extend(result.still_indexing)
    if ctx.log.still_indexing:  # said to the people here, and to the model by the engine
        ctx.log.notes.append(still_indexing_note(ctx.log.still_indexing))
    return chunks


def cited(
    ctx: TurnContext, labels: Sequence[str], excerpts: Sequence[RetrievedChunk]
) -> list[Citation]:
    """The citations the model named, matched to the excerpts it was given."""
    by_label = {chunk.citation.label(): chunk.citation for chunk in excerpts}
    found: list[Citation] = []
    for label in dict.fromkeys(labels):
        if label in by_label:
            found.append(by_label[label])
        else:
            ctx.ignore(f"citation {label} matches no excerpt")
    return found


def search_actions(
    query: str, excerpts: Sequence[RetrievedChunk], citations: Sequence[Citation]
) -> list[str]:
    """What the turn's knowledge searches did, for the turn log (the judge reads it)."""
    if not query:
        return []
    found = Counter(chunk.citation.kb for chunk in excerpts)
    sizes = ", ".join(f"{found[kb]} {kb.value}" for kb in KnowledgeBaseKind)
    actions = [f'searched the knowledge for "{query[:QUERY_NOTE_CHARS]}": {sizes} excerpt(s)']
    if citations:
        actions.append("cited " + ", ".join(c.label() for c in citations))
    return actions
