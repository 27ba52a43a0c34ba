"""Reciprocal-rank fusion, excerpt narrowing and each knowledge base's citation style."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from domain.knowledge import KnowledgeBaseKind
from rag.excerpts import Excerpt, best_span, excerpt
from rag.retrieval import Hit, fuse, keyword_query
from rag.strategies import CASE_EVIDENCE, GLOBAL_KB, PERSONAL_RUNBOOKS

WHEN = datetime(2025, 10, 21, 14, 32, 15, tzinfo=UTC)


def row(chunk_id: str, **fields: Any) -> dict[str, Any]:
    return {"chunk_id": chunk_id, **fields}


def test_rows_found_by_every_list_rank_first() -> None:
    every = [row("b")]
    some = [row("a"), row("b")]
    vector = [row("c"), row("b"), row("a")]

    hits = fuse([every, some, vector], limit=2)

    assert [hit.row["chunk_id"] for hit in hits] == ["b", "a"]
    assert 0 < hits[1].score < hits[0].score <= 1.0


def test_vector_distance_becomes_similarity() -> None:
    (hit,) = fuse([[row("a", _distance=0.25)]], limit=1)

    assert hit.similarity == 0.75


def test_question_words_are_not_keywords() -> None:
    assert keyword_query("What errors are in app.log?") == "errors app log"


def test_a_log_excerpt_is_the_lines_matching_the_query() -> None:
    lines = ["a INFO ok", "b INFO ok", "c ERROR pool exhausted", "d ERROR pool exhausted", "e ok"]

    assert best_span(lines, "pool exhausted") == (2, 3)
    assert best_span(lines, "nothing matches") == (2, 2)


def test_a_log_hit_is_narrowed_with_exact_line_numbers_and_time() -> None:
    text = "\n".join(
        [
            "2025-10-21T14:32:10Z WARN pool low",
            "2025-10-21T14:32:15Z ERROR ConnectionTimeout after 30000ms",
            "2025-10-21T14:32:20Z INFO retry",
        ]
    )
    hit = Hit(
        row=row(
            "x",
            source="server.log",
            title="server.log",
            section=None,
            doc_kind="log",
            line_start=1043,
            line_end=1045,
            ts_first=datetime(2025, 10, 21, 14, 32, 10, tzinfo=UTC),
            ts_format="iso8601",
            severity="ERROR",
            text=text,
        ),
        score=0.9,
        similarity=None,
    )

    item = excerpt(hit, "ConnectionTimeout")

    assert (item.line_start, item.line_end) == (1044, 1044)
    assert item.text == text.split("\n")[1]
    assert item.timestamp == WHEN
    assert item.severity == "ERROR"


def sample(**fields: Any) -> Excerpt:
    base: dict[str, Any] = {
        "source": "server.log",
        "title": "Database Timeout Runbook",
        "section": "Database Timeout Runbook › Step 3",
        "doc_kind": "markdown",
        "line_start": 1045,
        "line_end": 1045,
        "timestamp": WHEN,
        "severity": "ERROR",
        "score": 0.94,
        "text": "ERROR ConnectionTimeout",
    }
    return Excerpt(**{**base, **fields})


def test_case_evidence_is_cited_by_file_line_and_time() -> None:
    citation = CASE_EVIDENCE.citation(sample())

    assert citation.kb is KnowledgeBaseKind.CASE
    assert citation.label() == "server.log:1045 (14:32:15Z)"


def test_personal_runbooks_are_cited_by_title_and_section() -> None:
    assert PERSONAL_RUNBOOKS.citation(sample()).label() == "Database Timeout Runbook › Step 3"


def test_global_articles_are_cited_by_title() -> None:
    assert GLOBAL_KB.citation(sample()).label() == "Database Timeout Runbook"


def test_each_strategy_heads_its_excerpts_in_its_own_style() -> None:
    chunk = CASE_EVIDENCE.chunk(sample())

    assert "Cite as: server.log:1045 (14:32:15Z)" in CASE_EVIDENCE.header(1, chunk)
    assert "Runbook: " in PERSONAL_RUNBOOKS.header(1, PERSONAL_RUNBOOKS.chunk(sample()))
    assert "Article: Database Timeout Runbook" in GLOBAL_KB.header(1, GLOBAL_KB.chunk(sample()))
