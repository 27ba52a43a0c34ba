"""The shared runbooks as the global knowledge base: article citations and "this exists"."""

from __future__ import annotations

from pathlib import Path

import pytest

from domain.knowledge import IngestReport, KnowledgeBaseKind, ToolStatus
from tests.integration.rag.conftest import open_service
from tests.loghub import RUNBOOKS, runbook_files

pytestmark = pytest.mark.slow
Store = tuple[Path, dict[str, IngestReport]]


def test_every_shared_runbook_was_ingested(shared_store: Store) -> None:
    reports = shared_store[1]

    for path in runbook_files():
        report = reports[path.relative_to(RUNBOOKS).as_posix()]
        assert report.status is ToolStatus.OK, report.error
        assert report.chunks >= 1


async def test_a_global_question_is_answered_with_article_citations(
    shared_store: Store, model_embedder: object
) -> None:
    service = await open_service(shared_store[0], model_embedder)  # type: ignore[arg-type]

    result = await service.search_global(
        team_id="T7", query="the RAID array on a node is degraded, what should I do?"
    )

    assert result.status is ToolStatus.OK
    assert result.answer is None
    labels = [chunk.citation.label() for chunk in result.chunks]
    assert labels[0].startswith("NodeRAID")
    assert "NodeRAIDDegraded" in labels[:3]
    assert all(chunk.citation.line_start is None for chunk in result.chunks)


async def test_runbook_excerpts_keep_their_lines_in_the_source(
    shared_store: Store, model_embedder: object
) -> None:
    service = await open_service(shared_store[0], model_embedder)  # type: ignore[arg-type]

    hits = await service.search_excerpts(
        team_id="*", kb=KnowledgeBaseKind.GLOBAL, scope_id="", query="etcd GRPC requests slow"
    )

    assert hits
    for hit in hits:
        lines = (RUNBOOKS.parent / "runbooks" / hit.source).read_text(encoding="utf-8")
        assert hit.text == "\n".join(lines.split("\n")[hit.line_start - 1 : hit.line_end])


async def test_a_near_copy_of_a_runbook_is_recognised_as_existing(
    shared_store: Store, model_embedder: object
) -> None:
    service = await open_service(shared_store[0], model_embedder)  # type: ignore[arg-type]
    text = (RUNBOOKS / "prometheus-operator/node/NodeRAIDDegraded.md").read_text()

    similar = await service.find_similar_runbook(team_id="T7", text=text.split("## Impact")[0])
    unrelated = await service.find_similar_runbook(
        team_id="T7", text="How to bake sourdough bread with a long cold fermentation"
    )

    assert similar is not None
    assert similar[0] == "NodeRAIDDegraded"
    assert similar[1] >= 0.85
    assert unrelated is None
