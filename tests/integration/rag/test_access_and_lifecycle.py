"""Access control at the tool wrappers, workspace isolation, deletion on close, saved documents."""

from __future__ import annotations

from pathlib import Path

import pytest

from domain.knowledge import KnowledgeBaseKind, KnowledgePort, ToolStatus
from rag.service import KnowledgeService
from rag.store.tables import TableName
from tests.fakes.rag import HashingEmbedder
from tests.integration.rag.conftest import LanceLocation, open_at, open_service

LOG = b"""2025-10-21T14:32:10Z WARN pool exhausted, waiting for connection
2025-10-21T14:32:15Z ERROR ConnectionTimeout: database connection failed after 30000ms
2025-10-21T14:32:20Z ERROR transaction rollback initiated
"""
RUNBOOK = b"""# Database Timeout Runbook

## Check the pool

Run `kubectl get pods -n database` and check the connection pool size.

## Raise the limit

Increase max_connections from 100 to 200 and restart.
"""


@pytest.fixture
async def service(lance_location: LanceLocation) -> KnowledgeService:
    """A log and a runbook ingested, on a local directory and on S3 (every test runs on both)."""
    svc = await open_at(lance_location, HashingEmbedder())
    await svc.ingest_case_file(team_id="T1", case_id="C1", filename="server.log", content=LOG)
    await svc.ingest_knowledge_file(
        team_id="T1",
        kb=KnowledgeBaseKind.PERSONAL,
        scope_id="U1",
        filename="db.md",
        content=RUNBOOK,
    )
    return svc


def test_the_service_implements_the_knowledge_port(service: KnowledgeService) -> None:
    port: KnowledgePort = service
    assert port is service


async def test_case_evidence_is_found_within_its_own_case(service: KnowledgeService) -> None:
    result = await service.search_case_evidence(
        team_id="T1", case_id="C1", query="database connection failed"
    )

    assert result.status is ToolStatus.OK
    assert result.chunks[0].citation.label() == "server.log:2 (14:32:15Z)"
    assert result.chunks[0].text == LOG.decode().split("\n")[1]


async def test_another_case_sees_none_of_it(service: KnowledgeService) -> None:
    result = await service.search_case_evidence(
        team_id="T1", case_id="C2", query="connection timeout"
    )

    assert result.status is ToolStatus.NO_DATA
    assert result.chunks == []


async def test_another_workspace_sees_none_of_it(service: KnowledgeService) -> None:
    evidence = await service.search_case_evidence(team_id="T2", case_id="C1", query="timeout")
    runbooks = await service.search_personal_runbooks(team_id="T2", user_id="U1", query="pool")

    assert evidence.status is ToolStatus.NO_DATA
    assert runbooks.status is ToolStatus.NO_DATA


async def test_personal_runbooks_are_found_for_their_owner_with_title_and_section(
    service: KnowledgeService,
) -> None:
    result = await service.search_personal_runbooks(
        team_id="T1", user_id="U1", query="increase max_connections", requester_id="U1"
    )

    assert result.status is ToolStatus.OK
    assert result.chunks[0].citation.label() == "Database Timeout Runbook › Raise the limit"


async def test_someone_elses_runbooks_are_refused_or_invisible(service: KnowledgeService) -> None:
    refused = await service.search_personal_runbooks(
        team_id="T1", user_id="U1", query="pool", requester_id="U2"
    )
    own = await service.search_personal_runbooks(team_id="T1", user_id="U2", query="pool")

    assert refused.status is ToolStatus.ERROR
    assert refused.error == "runbooks are private to their owner"
    assert own.status is ToolStatus.NO_DATA


async def test_installation_wide_knowledge_is_seen_by_every_workspace(
    service: KnowledgeService,
) -> None:
    await service.ingest_knowledge_file(
        team_id="*", kb=KnowledgeBaseKind.GLOBAL, scope_id=None, filename="db.md", content=RUNBOOK
    )
    await service.save_document(
        team_id="T1",
        kb=KnowledgeBaseKind.GLOBAL,
        scope_id=None,
        title="T1 only report",
        markdown="# T1 only report\n\nThe pool was exhausted by a batch job.\n",
    )

    t2 = await service.search_global(team_id="T2", query="connection pool batch job exhausted")

    assert t2.status is ToolStatus.OK
    assert {chunk.citation.source for chunk in t2.chunks} == {"Database Timeout Runbook"}


async def test_a_case_the_workspace_does_not_own_is_refused(tmp_path: Path) -> None:
    class OnlyC1:
        async def case_in_team(self, *, team_id: str, case_id: str) -> bool:
            return (team_id, case_id) == ("T1", "C1")

    svc = await open_service(tmp_path / "db", HashingEmbedder(), case_access=OnlyC1())
    result = await svc.search_case_evidence(team_id="T1", case_id="C9", query="x")

    assert result.status is ToolStatus.ERROR
    assert result.error == "no such case in this workspace"


@pytest.mark.parametrize("case_id", ["C1' OR kb = 'global", "", "C 1"])
async def test_ids_that_could_widen_the_filter_are_refused(
    service: KnowledgeService, case_id: str
) -> None:
    result = await service.search_case_evidence(team_id="T1", case_id=case_id, query="timeout")

    assert result.status is ToolStatus.ERROR
    assert result.query == "timeout"


async def test_closing_a_case_deletes_its_evidence_only(service: KnowledgeService) -> None:
    await service.ingest_case_file(team_id="T1", case_id="C2", filename="other.log", content=LOG)

    removed = await service.delete_case_evidence(team_id="T1", case_id="C1")

    assert removed == 1
    gone = await service.search_case_evidence(team_id="T1", case_id="C1", query="timeout")
    kept = await service.search_case_evidence(team_id="T1", case_id="C2", query="timeout")
    assert gone.status is ToolStatus.NO_DATA
    assert kept.status is ToolStatus.OK


async def test_a_saved_runbook_replaces_its_earlier_version(service: KnowledgeService) -> None:
    for body in ("Restart the payments pods.", "Scale the payments deployment to 6 replicas."):
        report = await service.save_document(
            team_id="T1",
            kb=KnowledgeBaseKind.GLOBAL,
            scope_id=None,
            title="Payments 500s runbook",
            markdown=f"# Payments 500s runbook\n\n## Fix\n\n{body}\n",
        )
        assert report.status is ToolStatus.OK

    rows = await service.store.count(TableName.KNOWLEDGE, "source = 'payments-500s-runbook.md'")
    result = await service.search_global(team_id="T1", query="payments replicas")
    assert rows == 1
    assert "Scale the payments deployment" in result.chunks[0].text


async def test_a_case_or_personal_document_needs_its_scope(service: KnowledgeService) -> None:
    report = await service.save_document(
        team_id="T1", kb=KnowledgeBaseKind.PERSONAL, scope_id=None, title="x", markdown="# x\n"
    )

    assert report.status is ToolStatus.ERROR
    assert report.error == "a personal document needs a user id"


async def test_a_failing_search_is_reported_as_an_error_with_the_query(
    service: KnowledgeService,
) -> None:
    async def broken(*args: object) -> list[object]:
        raise RuntimeError("disk gone")

    service.retriever.search = broken  # type: ignore[method-assign]

    result = await service.search_global(team_id="T1", query="pool")

    assert result.status is ToolStatus.ERROR
    assert result.query == "pool"
    assert "RuntimeError" in (result.error or "")
