"""An in-memory KnowledgePort: word-overlap search over stored excerpts; saved documents kept."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime

from domain.knowledge import (
    Citation,
    IngestReport,
    KnowledgeBaseKind,
    KnowledgeResult,
    RetrievedChunk,
    ToolStatus,
)

_WORD = re.compile(r"[a-z0-9_]{3,}")


@dataclass
class SavedDocument:
    """A document handed to save_document."""

    team_id: str
    kb: KnowledgeBaseKind
    scope_id: str | None
    title: str
    markdown: str
    case_id: str | None = None


@dataclass
class FakeKnowledge:
    """Scoped stores: case evidence by (team, case), runbooks by (team, user), global by team."""

    case: dict[tuple[str, str], list[RetrievedChunk]] = field(default_factory=dict)
    personal: dict[tuple[str, str], list[RetrievedChunk]] = field(default_factory=dict)
    global_: dict[str, list[RetrievedChunk]] = field(default_factory=dict)
    saved: list[SavedDocument] = field(default_factory=list)
    similar_runbook: tuple[str, float] | None = None
    queries: list[tuple[KnowledgeBaseKind, str]] = field(default_factory=list)
    fail: set[KnowledgeBaseKind] = field(default_factory=set)
    save_fails: bool = False

    def add_case_excerpt(
        self,
        team_id: str,
        case_id: str,
        text: str,
        *,
        source: str = "app.log",
        line: int = 1,
        timestamp: datetime | None = None,
    ) -> RetrievedChunk:
        """Store one excerpt of a case's evidence."""
        citation = Citation(
            kb=KnowledgeBaseKind.CASE,
            source=source,
            line_start=line,
            line_end=line,
            timestamp=timestamp,
        )
        chunk = RetrievedChunk(text=text, citation=citation, score=0.0)
        self.case.setdefault((team_id, case_id), []).append(chunk)
        return chunk

    def add_article(self, team_id: str, title: str, text: str, *, section: str = "") -> None:
        """Store a global knowledge-base article section."""
        citation = Citation(kb=KnowledgeBaseKind.GLOBAL, source=title, section=section or None)
        self.global_.setdefault(team_id, []).append(
            RetrievedChunk(text=text, citation=citation, score=0.0)
        )

    def _search(
        self, kb: KnowledgeBaseKind, chunks: Sequence[RetrievedChunk], query: str, limit: int
    ) -> KnowledgeResult:
        self.queries.append((kb, query))
        if kb in self.fail:
            return KnowledgeResult(status=ToolStatus.ERROR, query=query, kb=kb, error="index down")
        wanted = set(_WORD.findall(query.lower()))
        scored = []
        for chunk in chunks:
            overlap = len(wanted & set(_WORD.findall(chunk.text.lower())))
            if overlap:
                scored.append(chunk.model_copy(update={"score": float(overlap)}))
        scored.sort(key=lambda c: -c.score)
        status = ToolStatus.OK if scored else ToolStatus.NO_DATA
        return KnowledgeResult(status=status, query=query, kb=kb, chunks=scored[:limit])

    async def search_case_evidence(
        self,
        *,
        team_id: str,
        case_id: str,
        query: str,
        conversation: Sequence[str] = (),
        limit: int = 8,
    ) -> KnowledgeResult:
        """Only this case's excerpts."""
        chunks = self.case.get((team_id, case_id), [])
        return self._search(KnowledgeBaseKind.CASE, chunks, query, limit)

    async def search_personal_runbooks(
        self,
        *,
        team_id: str,
        user_id: str,
        query: str,
        conversation: Sequence[str] = (),
        limit: int = 5,
    ) -> KnowledgeResult:
        """Only this person's runbooks."""
        chunks = self.personal.get((team_id, user_id), [])
        return self._search(KnowledgeBaseKind.PERSONAL, chunks, query, limit)

    async def search_global(
        self,
        *,
        team_id: str,
        query: str,
        conversation: Sequence[str] = (),
        limit: int = 5,
    ) -> KnowledgeResult:
        """The workspace's articles."""
        chunks = self.global_.get(team_id, [])
        return self._search(KnowledgeBaseKind.GLOBAL, chunks, query, limit)

    async def ingest_case_file(
        self, *, team_id: str, case_id: str, filename: str, content: bytes
    ) -> IngestReport:
        """Each line becomes an excerpt with its line number."""
        lines = content.decode().splitlines()
        for number, text in enumerate(lines, start=1):
            self.add_case_excerpt(team_id, case_id, text, source=filename, line=number)
        errors = sum("ERROR" in line for line in lines)
        return IngestReport(
            source=filename,
            status=ToolStatus.OK,
            lines=len(lines),
            size_bytes=len(content),
            chunks=len(lines),
            error_count=errors,
        )

    async def delete_case_evidence(self, *, team_id: str, case_id: str) -> int:
        """Forget a case's excerpts."""
        return len(self.case.pop((team_id, case_id), []))

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
        """Keep the document (or fail, when told to)."""
        if self.save_fails:
            return IngestReport(source=title, status=ToolStatus.ERROR, error="disk full")
        self.saved.append(SavedDocument(team_id, kb, scope_id, title, markdown, case_id))
        return IngestReport(source=title, status=ToolStatus.OK, lines=markdown.count("\n"))

    async def find_similar_runbook(
        self, *, team_id: str, text: str, threshold: float = 0.85
    ) -> tuple[str, float] | None:
        """Whatever the test configured."""
        return self.similar_runbook
