"""The evaluation knowledge port: redacted uploads cited by line, runbooks by section."""

from __future__ import annotations

from domain.knowledge import KnowledgeBaseKind, ToolStatus
from evals.knowledge import MemoryKnowledge, load_runbooks

LOG = (
    b"14:00:01 INFO started\n"
    b"14:05:02 ERROR HikariPool-1 connection is not available, timed out\n"
    b"14:05:03 INFO request ok\n"
    b"14:05:04 WARN password=hunter2 was logged by mistake\n"
)


async def test_an_upload_is_searchable_line_by_line_with_its_citation() -> None:
    knowledge = MemoryKnowledge()
    report = await knowledge.ingest_case_file(
        team_id="T", case_id="c1", filename="app.log", content=LOG
    )
    assert (report.lines, report.error_count, report.warning_count) == (4, 1, 1)
    found = await knowledge.search_case_evidence(
        team_id="T", case_id="c1", query="why is the pool connection not available?"
    )
    assert found.status is ToolStatus.OK
    assert found.chunks[0].citation.label() == "app.log:2"
    other = await knowledge.search_case_evidence(team_id="T", case_id="c2", query="pool")
    assert other.status is ToolStatus.NO_DATA


async def test_uploads_are_redacted_before_they_are_indexed() -> None:
    knowledge = MemoryKnowledge()
    await knowledge.ingest_case_file(team_id="T", case_id="c1", filename="a.log", content=LOG)
    found = await knowledge.search_case_evidence(team_id="T", case_id="c1", query="password logged")
    assert found.chunks
    assert "hunter2" not in found.chunks[0].text


async def test_a_rare_word_outranks_one_on_every_line() -> None:
    knowledge = MemoryKnowledge()
    await knowledge.ingest_case_file(team_id="T", case_id="c1", filename="a.log", content=LOG)
    found = await knowledge.search_case_evidence(team_id="T", case_id="c1", query="info started")
    assert found.chunks[0].citation.line_start == 1


async def test_the_bundled_runbooks_answer_by_title_and_section() -> None:
    knowledge = MemoryKnowledge()
    assert load_runbooks(knowledge) > 9
    found = await knowledge.search_global(team_id="T", query="Watchdog alert always firing")
    assert found.chunks[0].citation.kb is KnowledgeBaseKind.GLOBAL
    assert found.chunks[0].citation.source == "Watchdog"
    personal = await knowledge.search_personal_runbooks(team_id="T", user_id="U", query="x")
    assert personal.status is ToolStatus.NO_DATA
