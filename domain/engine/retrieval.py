"""Retrieval for a turn: excerpts from the case evidence and knowledge bases, and citations."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from domain.engine.context import TurnContext
from domain.engine.intents import parse_decision
from domain.knowledge import (
    Citation,
    KnowledgeBaseKind,
    KnowledgePort,
    KnowledgeResult,
    RetrievedChunk,
    ToolStatus,
)

QUERY_NOTE_CHARS = 120


@dataclass(frozen=True)
class RetrievalSettings:
    """How much to retrieve per turn."""

    case_excerpts: int = 6
    knowledge_excerpts: int = 3
    history_for_retrieval: int = 6
    turns_at_once: int = 4
    """Turns retrieving at the same time; the others wait their turn, first come first served.

    Retrieval is a turn's heaviest work on the event loop: when fifty cases open at once, letting
    all fifty search together makes every one of them wait for all the others' searches before
    its model call goes out; a few at a time sends the first model calls out at once.
    """


def turn_query(ctx: TurnContext) -> str:
    """What to search for: the new messages (not a bare yes/no), else file names, else the case."""
    case = ctx.case
    text = ctx.turn.text if parse_decision(ctx.turn.text) is None else ""
    query = text or " ".join(f.file.filename for f in ctx.turn.files)
    return (query or case.consulting.proposed_problem_statement or case.title).strip()


async def retrieve(
    ctx: TurnContext, knowledge: KnowledgePort, settings: RetrievalSettings
) -> list[RetrievedChunk]:
    """Excerpts for the newest input from the case's evidence, the person's runbooks, the KB."""
    case, query = ctx.case, turn_query(ctx)
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
