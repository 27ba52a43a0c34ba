"""One strategy per knowledge base: where it lives, how it cites, how it asks for synthesis."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from domain.knowledge import Citation, KnowledgeBaseKind, RetrievedChunk
from rag.chunking.documents import SECTION_SEPARATOR
from rag.excerpts import Excerpt
from rag.store.tables import TableName


class CitationStyle(StrEnum):
    """Forensic (file:line (time)), procedural (runbook › section) or educational (article)."""

    FORENSIC = "forensic"
    PROCEDURAL = "procedural"
    EDUCATIONAL = "educational"


@dataclass(frozen=True)
class KBStrategy:
    """Everything that differs between knowledge bases; the Q&A core knows none of it."""

    kind: KnowledgeBaseKind
    table: TableName
    style: CitationStyle
    prompt: str
    """Name of the system prompt in rag/prompts."""
    chronological: bool
    """Whether excerpts are shown to the model in time order (evidence) or by relevance."""

    def chunk(self, item: Excerpt) -> RetrievedChunk:
        """The excerpt as the domain sees it, cited in this knowledge base's style."""
        return RetrievedChunk(
            text=item.text, citation=self.citation(item), score=item.score, severity=item.severity
        )

    def citation(self, item: Excerpt) -> Citation:
        """`file:line (time)` for evidence, title and section for runbooks, title for articles."""
        if self.style is CitationStyle.FORENSIC:
            return Citation(
                kb=self.kind,
                source=item.source,
                line_start=item.line_start,
                line_end=item.line_end,
                timestamp=item.timestamp,
                section=item.section,
            )
        section = item.section if self.style is CitationStyle.PROCEDURAL else None
        return Citation(kb=self.kind, source=item.title, section=_within(item.title, section))

    def header(self, index: int, chunk: RetrievedChunk) -> str:
        """The line above each excerpt in the synthesis prompt."""
        cited = chunk.citation
        if self.style is CitationStyle.FORENSIC:
            when = cited.timestamp.isoformat() if cited.timestamp else "no timestamp"
            level = f", Severity: {chunk.severity}" if chunk.severity else ""
            return (
                f"[Excerpt {index} - Score: {chunk.score:.2f}, Cite as: {cited.label()}, "
                f"Time: {when}{level}]"
            )
        if self.style is CitationStyle.PROCEDURAL:
            return f"[Excerpt {index} - Score: {chunk.score:.2f}, Runbook: {cited.label()}]"
        return f"[Excerpt {index} - Score: {chunk.score:.2f}, Article: {cited.source}]"


CASE_EVIDENCE = KBStrategy(
    KnowledgeBaseKind.CASE, TableName.EVIDENCE, CitationStyle.FORENSIC, "case_evidence", True
)
PERSONAL_RUNBOOKS = KBStrategy(
    KnowledgeBaseKind.PERSONAL,
    TableName.KNOWLEDGE,
    CitationStyle.PROCEDURAL,
    "personal_runbooks",
    False,
)
GLOBAL_KB = KBStrategy(
    KnowledgeBaseKind.GLOBAL, TableName.KNOWLEDGE, CitationStyle.EDUCATIONAL, "global_kb", False
)


def _within(title: str, section: str | None) -> str | None:
    """The section path below the title (headings usually repeat the title as their root)."""
    if section is None or section == title:
        return None
    return section.removeprefix(title + SECTION_SEPARATOR)
