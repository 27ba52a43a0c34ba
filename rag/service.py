"""KnowledgeService: the KnowledgePort over LanceDB, local embeddings and the three tools."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from datetime import datetime
from pathlib import Path

from domain.base import utc_now
from domain.knowledge import (
    IngestReport,
    KnowledgeBaseKind,
    KnowledgePort,
    KnowledgeResult,
    ToolStatus,
)
from domain.llm import LLMPort
from domain.memory import CaseDocumentHit, CaseDocumentIndex
from rag.backfill import VectorBackfill
from rag.embeddings.embedder import Embedder, SentenceTransformerEmbedder, VectorCache
from rag.embeddings.model import resolve_model_path
from rag.excerpts import Excerpt
from rag.ingestion import IngestionPipeline, IngestRequest, ProgressCallback
from rag.qa import DocumentQA
from rag.retrieval import HybridRetriever
from rag.store.filters import InvalidScopeError, Scope, check_id, quote
from rag.store.rows import RowScope
from rag.store.tables import KnowledgeStore, TableName, table_for
from rag.tools import (
    INSTALLATION_TEAM,
    CaseAccess,
    CaseEvidenceTool,
    GlobalKnowledgeTool,
    PersonalRunbookTool,
)

_SLUG = re.compile(r"[^A-Za-z0-9]+")


class KnowledgeService:
    """Implements domain.knowledge.KnowledgePort; every method is scoped by workspace."""

    def __init__(
        self,
        store: KnowledgeStore,
        embedder: Embedder,
        llm: LLMPort | None,
        *,
        max_upload_bytes: int,
        case_access: CaseAccess | None = None,
        clock: Callable[[], datetime] = utc_now,
        cache: VectorCache | None = None,
    ) -> None:
        self.store = store
        self._embedder = embedder
        self._max_upload_bytes = max_upload_bytes
        self._case_access = case_access
        self.retriever = HybridRetriever(store, embedder)
        self.qa = DocumentQA(self.retriever, llm)
        self.case_evidence = CaseEvidenceTool(self.qa, case_access)
        self.personal_runbooks = PersonalRunbookTool(self.qa)
        self.global_kb = GlobalKnowledgeTool(self.qa)
        self.backfill = VectorBackfill()
        """Case files' vectors, computed after their text is searchable, one file at a time."""
        self.pipeline = IngestionPipeline(
            store, embedder, cache=cache, clock=clock, backfill=self.backfill
        )

    def resume(self) -> None:
        """Finish in the background the vectors a stopped process left owed (once, at start)."""
        self.backfill.submit(self.pipeline.sweep_job())

    async def settled(self) -> None:
        """Return once every file's vectors are written (tests, benchmarks)."""
        await self.backfill.settled()

    async def aclose(self) -> None:
        """Stop computing vectors; the files concerned are finished at the next start."""
        await self.backfill.aclose()

    def still_indexing(self, *, team_id: str, case_id: str) -> list[str]:
        """The case's files searched by their full text only, their vectors still to come."""
        return self.backfill.pending(TableName.EVIDENCE, team_id, "case", case_id)

    async def search_case_evidence(
        self,
        *,
        team_id: str,
        case_id: str,
        query: str,
        conversation: Sequence[str] = (),
        limit: int = 8,
    ) -> KnowledgeResult:
        """Search one case's evidence (only within that case); it names the files whose vectors
        are still to come, found by their full text only."""
        result = await self.case_evidence.run(
            team_id=team_id, case_id=case_id, query=query, conversation=conversation, limit=limit
        )
        pending = self.still_indexing(team_id=team_id, case_id=case_id)
        if not pending or result.status is ToolStatus.ERROR:
            return result
        return result.model_copy(update={"still_indexing": pending})

    async def search_personal_runbooks(
        self,
        *,
        team_id: str,
        user_id: str,
        query: str,
        conversation: Sequence[str] = (),
        limit: int = 5,
        requester_id: str | None = None,
    ) -> KnowledgeResult:
        """Search one person's runbooks (only for that person)."""
        return await self.personal_runbooks.run(
            team_id=team_id,
            user_id=user_id,
            query=query,
            conversation=conversation,
            limit=limit,
            requester_id=requester_id,
        )

    async def search_global(
        self,
        *,
        team_id: str,
        query: str,
        conversation: Sequence[str] = (),
        limit: int = 5,
    ) -> KnowledgeResult:
        """Search the workspace's global knowledge base."""
        return await self.global_kb.run(
            team_id=team_id, query=query, conversation=conversation, limit=limit
        )

    async def ingest_case_file(
        self,
        *,
        team_id: str,
        case_id: str,
        filename: str,
        content: bytes,
        progress: ProgressCallback | None = None,
    ) -> IngestReport:
        """Redact, chunk and index an uploaded file as evidence of the case.

        The report comes once the file is searchable by its full text (``still_indexing`` when
        its vectors follow in the background; `settled` waits for them).
        """
        try:
            scope = RowScope(check_id(team_id, "workspace"), "case", check_id(case_id, "case"))
        except InvalidScopeError as exc:
            return IngestReport(source=filename, status=ToolStatus.ERROR, error=str(exc))
        if self._case_access is not None and not await self._case_access.case_in_team(
            team_id=team_id, case_id=case_id
        ):
            return IngestReport(
                source=filename, status=ToolStatus.ERROR, error="no such case in this workspace"
            )
        request = IngestRequest(
            scope, filename, content, self._max_upload_bytes, vectors_later=True
        )
        return await self.pipeline.ingest(request, progress)

    async def ingest_knowledge_file(
        self,
        *,
        team_id: str,
        kb: KnowledgeBaseKind,
        scope_id: str | None,
        filename: str,
        content: bytes,
        progress: ProgressCallback | None = None,
    ) -> IngestReport:
        """Add a file to a personal or global knowledge base, replacing its earlier version."""
        try:
            scope = knowledge_scope(team_id, kb, scope_id)
        except InvalidScopeError as exc:
            return IngestReport(source=filename, status=ToolStatus.ERROR, error=str(exc))
        request = IngestRequest(
            scope, filename, content, self._max_upload_bytes, replace_source=True
        )
        return await self.pipeline.ingest(request, progress)

    async def delete_case_evidence(self, *, team_id: str, case_id: str) -> int:
        """Remove a closed case's evidence; return how many chunks were removed."""
        scope = Scope((check_id(team_id, "workspace"),), "case", check_id(case_id, "case"))
        await self.backfill.forget(TableName.EVIDENCE, team_id, "case", case_id)
        removed = await self.store.delete(TableName.EVIDENCE, scope.where())
        if removed:
            await self.store.maintain(TableName.EVIDENCE)
        return removed

    async def save_document(
        self,
        *,
        team_id: str,
        kb: KnowledgeBaseKind,
        scope_id: str | None,
        title: str,
        markdown: str,
        case_id: str | None = None,
    ) -> IngestReport:
        """Keep a generated report or runbook in a knowledge base (a newer one replaces it).

        With ``case_id`` (the case it was written from) its rows carry that case, so the case can
        be found again as "seen before", and only that case's newer version replaces it.
        """
        name = _SLUG.sub("-", title).strip("-").lower() or "document"
        filename = f"{name}-{_SLUG.sub('-', case_id).lower()}.md" if case_id else f"{name}.md"
        try:
            scope = knowledge_scope(team_id, kb, scope_id)
            if case_id is not None:
                scope = replace(scope, case_id=check_id(case_id, "case"))
        except InvalidScopeError as exc:
            return IngestReport(source=filename, status=ToolStatus.ERROR, error=str(exc))
        request = IngestRequest(
            scope,
            filename,
            markdown.encode("utf-8"),
            self._max_upload_bytes,
            title=title,
            replace_source=True,
        )
        return await self.pipeline.ingest(request)

    async def find_similar_runbook(
        self, *, team_id: str, text: str, threshold: float = 0.85, user_id: str | None = None
    ) -> tuple[str, float] | None:
        """The most similar existing runbook's title and similarity, when above the threshold."""
        where = similar_runbook_filter(team_id, user_id)
        vector = (await self._embedder.embed([text]))[0]
        hits = await self.retriever.nearest(TableName.KNOWLEDGE, vector, where, 1)
        if not hits or hits[0].similarity is None or hits[0].similarity < threshold:
            return None
        return str(hits[0].row["title"]), round(hits[0].similarity, 4)

    async def search_case_documents(
        self, *, team_id: str, text: str, limit: int = 20
    ) -> list[CaseDocumentHit]:
        """The excerpts of this workspace's case reports and runbooks nearest to ``text``."""
        where = case_documents_filter(team_id)
        if not await self.store.count(TableName.KNOWLEDGE, where):
            return []  # no finished case wrote a document yet: no need for the model
        vector = (await self._embedder.embed([text]))[0]
        hits = await self.retriever.nearest(TableName.KNOWLEDGE, vector, where, limit)
        return [
            CaseDocumentHit(
                case_id=str(hit.row["case_id"]),
                title=str(hit.row["title"]),
                section=hit.row.get("section"),
                similarity=max(-1.0, min(1.0, round(hit.similarity, 4))),
            )
            for hit in hits
            if hit.similarity is not None and hit.row.get("case_id")
        ]

    async def search_excerpts(
        self, *, team_id: str, kb: KnowledgeBaseKind, scope_id: str, query: str, limit: int = 10
    ) -> list[Excerpt]:
        """Raw cited hits (file, lines, time, score, text), e.g. for `fm kb search --json`."""
        teams: tuple[str, ...] = (check_id(team_id, "workspace"),)
        if kb is not KnowledgeBaseKind.CASE and team_id != INSTALLATION_TEAM:
            teams = (*teams, INSTALLATION_TEAM)
        scope = Scope(teams, kb.value, check_id(scope_id, "scope") if scope_id else "")
        return (await self.qa.search(table_for(kb.value), scope, query, limit)).excerpts


def similar_runbook_filter(team_id: str, user_id: str | None) -> str:
    """The workspace's global runbooks, plus the asking user's own when `user_id` is given."""
    teams = ", ".join(quote(team) for team in (check_id(team_id, "workspace"), INSTALLATION_TEAM))
    kbs = "kb = 'global'"
    if user_id is not None:
        owner = quote(check_id(user_id, "user"))
        kbs = f"(kb = 'global' OR (kb = 'personal' AND scope_id = {owner}))"
    return f"team_id IN ({teams}) AND {kbs}"


def case_documents_filter(team_id: str) -> str:
    """Documents this workspace's finished cases wrote (never the installation-wide ones)."""
    return f"team_id = {quote(check_id(team_id, 'workspace'))} AND case_id IS NOT NULL"


def knowledge_scope(team_id: str, kb: KnowledgeBaseKind, scope_id: str | None) -> RowScope:
    """Where a knowledge document goes: case and personal documents need their scope id."""
    team = check_id(team_id, "workspace")
    if kb is KnowledgeBaseKind.GLOBAL:
        return RowScope(team, kb.value, "")
    if not scope_id:
        raise InvalidScopeError(f"a {kb.value} document needs a {_owner(kb)} id")
    return RowScope(team, kb.value, check_id(scope_id, _owner(kb)))


def _owner(kb: KnowledgeBaseKind) -> str:
    return "case" if kb is KnowledgeBaseKind.CASE else "user"


async def open_knowledge_service(
    *,
    lancedb_uri: str,
    embedding_model: str | None,
    llm: LLMPort | None,
    max_upload_bytes: int,
    case_access: CaseAccess | None = None,
    embedder: Embedder | None = None,
    storage_options: Mapping[str, str] | None = None,
    export_dir: Path | None = None,
) -> KnowledgeService:
    """Build the service from settings values (the composition root calls this once)."""
    embedder = embedder or SentenceTransformerEmbedder(
        resolve_model_path(embedding_model), export_dir=export_dir
    )
    store = await KnowledgeStore.open(lancedb_uri, embedder.dimension, storage_options)
    return KnowledgeService(
        store, embedder, llm, max_upload_bytes=max_upload_bytes, case_access=case_access
    )


def as_port(service: KnowledgeService) -> KnowledgePort:
    """The service as the core's port (type-checked: the signatures must stay compatible)."""
    return service


def as_case_document_index(service: KnowledgeService) -> CaseDocumentIndex:
    """The service as the index of finished cases' documents (type-checked likewise)."""
    return service
