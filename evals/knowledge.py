"""An in-memory KnowledgePort for evaluations: shared files indexed by line, runbooks by section.

The real knowledge service would load the embedding model and a LanceDB directory for each run;
that costs seconds per scenario and makes retrieval, not the investigation, what a CI run
measures. This port keeps what the engine relies on: redacted uploads, excerpts cited by file
and line, runbook sections cited by title, and words-in-common ranking (rarer words weigh more).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
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


@dataclass(frozen=True)
class _Entry:
    text: str
    citation: Citation
    words: frozenset[str]


@dataclass
class EvalKnowledge:
    """Case evidence per case, a global knowledge base of runbook sections, saved documents."""

    evidence: dict[str, list[_Entry]] = field(default_factory=dict)
    articles: list[_Entry] = field(default_factory=list)
    saved: list[tuple[str, str]] = field(default_factory=list)

    def add_article(self, title: str, section: str, text: str) -> None:
        """One section of a runbook or article in the global knowledge base."""
        citation = Citation(kb=KnowledgeBaseKind.GLOBAL, source=title, section=section or None)
        self.articles.append(_Entry(text, citation, frozenset(words(f"{section} {text}"))))

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
        entries = self.evidence.get(case_id, [])
        return _search(KnowledgeBaseKind.CASE, entries, query, limit)

    async def search_personal_runbooks(
        self,
        *,
        team_id: str,
        user_id: str,
        query: str,
        conversation: Sequence[str] = (),
        limit: int = 5,
    ) -> KnowledgeResult:
        """The simulated engineer keeps no personal runbooks."""
        return KnowledgeResult(
            status=ToolStatus.NO_DATA, query=query, kb=KnowledgeBaseKind.PERSONAL
        )

    async def search_global(
        self,
        *,
        team_id: str,
        query: str,
        conversation: Sequence[str] = (),
        limit: int = 5,
    ) -> KnowledgeResult:
        """Runbook sections that share the most (rare) words with the query."""
        return _search(KnowledgeBaseKind.GLOBAL, self.articles, query, limit)

    async def ingest_case_file(
        self, *, team_id: str, case_id: str, filename: str, content: bytes
    ) -> IngestReport:
        """Redact, then index every non-blank line with its line number."""
        lines = redact_text(content.decode("utf-8", errors="replace")).splitlines()
        entries = self.evidence.setdefault(case_id, [])
        for number, line in enumerate(lines, start=1):
            if line.strip():
                citation = Citation(
                    kb=KnowledgeBaseKind.CASE, source=filename, line_start=number, line_end=number
                )
                entries.append(_Entry(line, citation, frozenset(words(line))))
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
        """Forget a case's lines."""
        return len(self.evidence.pop(case_id, []))

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
        """Keep the document; it is not searched (runs must not leak into each other)."""
        self.saved.append((title, markdown))
        return IngestReport(source=title, status=ToolStatus.OK, lines=markdown.count("\n") + 1)

    async def find_similar_runbook(
        self, *, team_id: str, text: str, threshold: float = 0.85
    ) -> tuple[str, float] | None:
        """No generated runbook is kept between runs, so none is similar."""
        return None


def _search(
    kb: KnowledgeBaseKind, entries: Sequence[_Entry], query: str, limit: int
) -> KnowledgeResult:
    wanted = words(query)
    counts = Counter(w for e in entries for w in e.words & wanted)
    # Inverse document frequency: a word on every line of a log says nothing about which line.
    weight = {w: math.log(1 + len(entries) / n) for w, n in counts.items()}
    scored = [(sum(weight[w] for w in e.words & wanted), i) for i, e in enumerate(entries)]
    best = sorted((s for s in scored if s[0] > 0), key=lambda s: (-s[0], s[1]))[:limit]
    chunks = [
        RetrievedChunk(text=entries[i].text, citation=entries[i].citation, score=round(score, 4))
        for score, i in best
    ]
    status = ToolStatus.OK if chunks else ToolStatus.NO_DATA
    return KnowledgeResult(status=status, query=query, kb=kb, chunks=chunks)


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


def load_runbooks(knowledge: EvalKnowledge, root: Path = KNOWLEDGE_DIR) -> int:
    """Add every markdown file under ``root`` section by section; return how many sections."""
    added = 0
    for path in sorted(root.rglob("*.md")):
        text = path.read_text("utf-8")
        title = next((ln[2:].strip() for ln in text.splitlines() if ln.startswith("# ")), path.stem)
        for section, body in _sections(text):
            if body:
                knowledge.add_article(title, section, body)
                added += 1
    return added
