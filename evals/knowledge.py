"""An in-memory KnowledgePort, for evaluations and tests: shared files indexed by line, articles
and runbooks by section, saved documents kept.

The real knowledge service would load the embedding model and a LanceDB directory for each run;
that costs seconds per scenario and makes retrieval, not the investigation, what a CI run
measures. This port keeps what the engine relies on: redacted uploads, excerpts cited by file
and line, articles cited by title and section, each workspace's (and each person's) own stores,
and words-in-common ranking (rarer words weigh more). Tests also read what it was asked
(``queries``) and given (``saved``), and can make a search or a save fail (``fail``,
``save_fails``). The test suite's fake (tests/fakes/knowledge.py) is this class.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from functools import lru_cache
from pathlib import Path

from domain.knowledge import (
    Citation,
    IngestReport,
    KnowledgeBaseKind,
    KnowledgeResult,
    RetrievedChunk,
    ToolStatus,
)
from domain.redaction import redact_text

KNOWLEDGE_DIR = Path(__file__).parent / "runbooks"
_WORD = re.compile(r"[a-z0-9_.-]{3,}")
_ERROR = re.compile(r"\b(?:error|fatal|failed|exception|critical)\b", re.IGNORECASE)
_WARNING = re.compile(r"\bwarn(?:ing)?\b", re.IGNORECASE)
_STOP = frozenset(
    {
        "the",
        "and",
        "for",
        "that",
        "this",
        "with",
        "from",
        "what",
        "have",
        "has",
        "are",
        "was",
        "were",
        "you",
        "your",
        "our",
        "can",
        "not",
        "but",
        "all",
        "any",
        "its",
        "into",
        "when",
        "then",
        "than",
        "there",
        "they",
        "them",
        "who",
        "why",
        "how",
    }
)


def words(text: str) -> set[str]:
    """The searchable words of a text."""
    return {w.strip(".-") for w in _WORD.findall(text.lower())} - _STOP


@lru_cache(maxsize=65536)
def _chunk_words(text: str, section: str | None) -> frozenset[str]:
    """The words a stored excerpt is found by: its section heading's and its own."""
    return frozenset(words(f"{section or ''} {text}"))


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
class MemoryKnowledge:
    """Case evidence by (workspace, case), runbooks by (workspace, person), articles by workspace
    and for every workspace (the installation's, as the bundled runbooks are), saved documents."""

    case: dict[tuple[str, str], list[RetrievedChunk]] = field(default_factory=dict)
    personal: dict[tuple[str, str], list[RetrievedChunk]] = field(default_factory=dict)
    global_: dict[str, list[RetrievedChunk]] = field(default_factory=dict)
    installation: list[RetrievedChunk] = field(default_factory=list)
    """Articles every workspace's searches see."""
    saved: list[SavedDocument] = field(default_factory=list)
    """Documents saved, in order; they are not searched (runs must not leak into each other)."""
    similar_runbook: tuple[str, float] | None = None
    """What find_similar_runbook answers (none by default: no runbook is kept between runs)."""
    queries: list[tuple[KnowledgeBaseKind, str]] = field(default_factory=list)
    fail: set[KnowledgeBaseKind] = field(default_factory=set)
    """Knowledge bases whose searches fail, as an index that is down would."""
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

    def add_article(self, team_id: str | None, title: str, text: str, *, section: str = "") -> None:
        """Store one section of an article or runbook in the global knowledge base: the
        workspace's, or every workspace's when ``team_id`` is None."""
        citation = Citation(kb=KnowledgeBaseKind.GLOBAL, source=title, section=section or None)
        chunk = RetrievedChunk(text=text, citation=citation, score=0.0)
        if team_id is None:
            self.installation.append(chunk)
        else:
            self.global_.setdefault(team_id, []).append(chunk)

    async def search_case_evidence(
        self,
        *,
        team_id: str,
        case_id: str,
        query: str,
        conversation: Sequence[str] = (),
        limit: int = 8,
    ) -> KnowledgeResult:
        """Lines of this case's files that share the most (rare) words with the query."""
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
        """The workspace's and every workspace's article sections sharing the most (rare) words
        with the query."""
        chunks = [*self.global_.get(team_id, []), *self.installation]
        return self._search(KnowledgeBaseKind.GLOBAL, chunks, query, limit)

    async def ingest_case_file(
        self, *, team_id: str, case_id: str, filename: str, content: bytes
    ) -> IngestReport:
        """Redact, then keep every non-blank line as an excerpt cited by its line number."""
        lines = redact_text(content.decode("utf-8", errors="replace")).splitlines()
        for number, text in enumerate(lines, start=1):
            if text.strip():
                self.add_case_excerpt(team_id, case_id, text, source=filename, line=number)
        return IngestReport(
            source=filename,
            status=ToolStatus.OK,
            lines=len(lines),
            size_bytes=len(content),
            chunks=len(lines),
            error_count=sum(1 for line in lines if _ERROR.search(line)),
            warning_count=sum(1 for line in lines if _WARNING.search(line)),
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
        return IngestReport(source=title, status=ToolStatus.OK, lines=markdown.count("\n") + 1)

    async def find_similar_runbook(
        self, *, team_id: str, text: str, threshold: float = 0.85
    ) -> tuple[str, float] | None:
        """Whatever was set in ``similar_runbook``."""
        return self.similar_runbook

    def _search(
        self, kb: KnowledgeBaseKind, chunks: Sequence[RetrievedChunk], query: str, limit: int
    ) -> KnowledgeResult:
        self.queries.append((kb, query))
        if kb in self.fail:
            return KnowledgeResult(status=ToolStatus.ERROR, query=query, kb=kb, error="index down")
        return _ranked(kb, chunks, query, limit)


def _ranked(
    kb: KnowledgeBaseKind, chunks: Sequence[RetrievedChunk], query: str, limit: int
) -> KnowledgeResult:
    """The chunks sharing words with the query, most shared (rare) words first."""
    wanted = words(query)
    found = [_chunk_words(c.text, c.citation.section) & wanted for c in chunks]
    counts = Counter(w for shared in found for w in shared)
    # Inverse document frequency: a word on every line of a log says nothing about which line.
    weight = {w: math.log(1 + len(chunks) / n) for w, n in counts.items()}
    scored = [(sum(weight[w] for w in shared), i) for i, shared in enumerate(found)]
    best = sorted((s for s in scored if s[0] > 0), key=lambda s: (-s[0], s[1]))[:limit]
    ranked = [chunks[i].model_copy(update={"score": round(score, 4)}) for score, i in best]
    status = ToolStatus.OK if ranked else ToolStatus.NO_DATA
    return KnowledgeResult(status=status, query=query, kb=kb, chunks=ranked)


def _sections(text: str) -> Iterator[tuple[str, str]]:
    """(heading, body) pairs of a markdown text; the part before the first heading has none."""
    section, body = "", list[str]()
    for line in text.splitlines():
        if line.startswith("#"):
            yield section, "\n".join(body).strip()
            section, body = line.lstrip("#").strip(), []
        else:
            body.append(line)
    yield section, "\n".join(body).strip()


def load_runbooks(knowledge: MemoryKnowledge, root: Path = KNOWLEDGE_DIR) -> int:
    """Add every markdown file under ``root`` section by section, for every workspace; return
    how many sections."""
    added = 0
    for path in sorted(root.rglob("*.md")):
        text = path.read_text("utf-8")
        title = next((ln[2:].strip() for ln in text.splitlines() if ln.startswith("# ")), path.stem)
        for section, body in _sections(text):
            if body:
                knowledge.add_article(None, title, body, section=section)
                added += 1
    return added
