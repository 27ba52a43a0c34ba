"""The KB-neutral Q&A core: rewrite, filter, retrieve, cite and synthesise, for any strategy."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass

from domain.knowledge import KnowledgeResult, ToolStatus
from domain.llm import LLMPort
from rag.excerpts import Excerpt, excerpt
from rag.retrieval import HybridRetriever
from rag.store.filters import Scope, derive_filters
from rag.store.tables import TableName
from rag.strategies import KBStrategy
from rag.synthesis import rewrite_query, synthesize

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class SearchOutcome:
    """Excerpts found, and the question-derived filter that applied (None if none did)."""

    excerpts: list[Excerpt]
    filters: str | None


class DocumentQA:
    """Answers a question from one scope of one knowledge base; strategies supply the style."""

    def __init__(self, retriever: HybridRetriever, llm: LLMPort | None) -> None:
        self._retriever = retriever
        self._llm = llm

    async def answer(
        self,
        strategy: KBStrategy,
        scope: Scope,
        question: str,
        *,
        conversation: Sequence[str] = (),
        limit: int = 5,
        case_id: str | None = None,
    ) -> KnowledgeResult:
        """Cited excerpts (and an answer when an LLM is available), with the exact query run."""
        query = await rewrite_query(self._llm, question, conversation, case_id=case_id)
        try:
            found = await self.search(strategy.table, scope, query, limit)
        except Exception as exc:  # a tool reports failure as a result, so the turn can go on
            logger.warning("knowledge search failed", extra={"case_id": case_id}, exc_info=True)
            reason = f"the search failed ({type(exc).__name__}); try again or rephrase"
            return KnowledgeResult(
                status=ToolStatus.ERROR, query=query, kb=strategy.kind, error=reason
            )
        if not found.excerpts:
            return KnowledgeResult(status=ToolStatus.NO_DATA, query=query, kb=strategy.kind)
        chunks = [strategy.chunk(item) for item in found.excerpts]
        return KnowledgeResult(
            status=ToolStatus.OK,
            query=query,
            kb=strategy.kind,
            chunks=chunks,
            answer=await synthesize(self._llm, strategy, query, chunks, case_id=case_id),
            filters=found.filters,
        )

    async def search(self, table: TableName, scope: Scope, query: str, limit: int) -> SearchOutcome:
        """Hybrid search in scope; filters read from the query are relaxed until something hits."""
        base = scope.where()
        filters = derive_filters(query)
        for derived in filters.relaxations():
            where = f"{base} AND {derived}" if derived else base
            text = filters.content_query(query) if derived and filters.sources else query
            hits = await self._retriever.search(table, text, where, limit)
            if hits:
                return SearchOutcome([excerpt(hit, query) for hit in hits], derived)
        return SearchOutcome([], None)
