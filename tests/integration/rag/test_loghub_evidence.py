"""The shared LogHub logs as case evidence: reports, rows, citations against ground truth."""

from __future__ import annotations

from pathlib import Path

import pytest

from domain.knowledge import IngestReport, ToolStatus
from rag.chunking.decoding import split_lines
from rag.store.filters import Scope, quote
from rag.store.tables import TableName
from tests.fakes.rag import FakeLLM
from tests.integration.rag.conftest import CASE, TEAM, open_service
from tests.loghub import LogSystem, systems

pytestmark = pytest.mark.slow
Store = tuple[Path, dict[str, IngestReport]]


def file_lines(system: LogSystem) -> list[str]:
    return split_lines(system.log_path.read_text(encoding="utf-8"))


@pytest.mark.parametrize("system", systems(), ids=lambda s: s.name)
def test_each_log_is_reported_with_its_lines_counts_and_time_range(
    shared_store: Store, system: LogSystem
) -> None:
    report = shared_store[1][system.filename]
    truth = system.ground_truth()

    assert report.status is ToolStatus.OK
    assert report.lines == len(truth) == 2000
    assert report.redactions == 0
    assert report.chunks >= 2000 // 40
    assert report.first_timestamp is not None
    assert report.last_timestamp is not None
    assert report.first_timestamp <= report.last_timestamp
    assert report.top_messages[0][0] >= report.top_messages[-1][0]


@pytest.mark.parametrize("system", systems(), ids=lambda s: s.name)
async def test_rows_hold_every_line_exactly_once_under_its_own_number(
    shared_store: Store, model_embedder: object, system: LogSystem
) -> None:
    service = await open_service(shared_store[0], model_embedder)  # type: ignore[arg-type]
    where = Scope((TEAM,), "case", CASE).where() + f" AND source = {quote(system.filename)}"
    table = service.store.table(TableName.EVIDENCE)
    rows = await table.query().where(where).select(["line_start", "line_end", "text"]).to_list()
    lines = file_lines(system)

    covered = []
    for row in sorted(rows, key=lambda r: r["line_start"]):
        assert row["text"] == "\n".join(lines[row["line_start"] - 1 : row["line_end"]])
        covered.extend(range(row["line_start"], row["line_end"] + 1))
    assert covered == list(range(1, len(lines) + 1))


@pytest.mark.parametrize("system", systems(), ids=lambda s: s.name)
async def test_citations_point_at_the_lines_holding_the_cited_ground_truth(
    shared_store: Store, model_embedder: object, system: LogSystem
) -> None:
    service = await open_service(shared_store[0], model_embedder)  # type: ignore[arg-type]
    truth = {row.line: row for row in system.ground_truth()}
    lines = file_lines(system)
    samples = list({row.event_id: row for row in truth.values()}.values())[:6]

    for sample in samples:
        result = await service.search_case_evidence(
            team_id=TEAM, case_id=CASE, query=f"{sample.content} in {system.filename}"
        )
        assert result.status is ToolStatus.OK
        for chunk in result.chunks:
            cited = chunk.citation
            assert cited.source == system.filename
            assert cited.line_start is not None
            assert cited.line_end is not None
            assert chunk.text == "\n".join(lines[cited.line_start - 1 : cited.line_end])
            for number in range(cited.line_start, cited.line_end + 1):
                assert truth[number].content.strip() in lines[number - 1]
        assert any(
            truth[line].content == sample.content
            for chunk in result.chunks
            for line in range(chunk.citation.line_start or 0, (chunk.citation.line_end or 0) + 1)
        )


async def test_every_event_template_is_found_in_the_top_five(
    shared_store: Store, model_embedder: object
) -> None:
    service = await open_service(shared_store[0], model_embedder)  # type: ignore[arg-type]
    found = total = 0
    for system in systems():
        events = {row.line: row.event_id for row in system.ground_truth()}
        where = Scope((TEAM,), "case", CASE).where() + f" AND source = {quote(system.filename)}"
        for event_id, template in system.templates().items():
            hits = await service.retriever.search(TableName.EVIDENCE, template, where, 5)
            total += 1
            found += any(
                events.get(line) == event_id
                for hit in hits
                for line in range(hit.row["line_start"], hit.row["line_end"] + 1)
            )

    assert found / total >= 0.9


async def test_without_an_llm_the_cited_excerpts_are_the_answer(
    shared_store: Store, model_embedder: object
) -> None:
    service = await open_service(shared_store[0], model_embedder)  # type: ignore[arg-type]

    result = await service.search_case_evidence(
        team_id=TEAM, case_id=CASE, query="What errors are in Apache_2k.log?"
    )

    assert result.status is ToolStatus.OK
    assert result.answer is None
    assert result.query == "What errors are in Apache_2k.log?"
    assert result.filters == "source IN ('Apache_2k.log') AND severity_rank >= 40"
    assert all(chunk.severity == "ERROR" for chunk in result.chunks)
    assert all(chunk.citation.label().startswith("Apache_2k.log:") for chunk in result.chunks)
    assert "[error]" in result.chunks[0].text


async def test_with_an_llm_the_answer_is_synthesised_from_cited_excerpts(
    shared_store: Store, model_embedder: object
) -> None:
    llm = FakeLLM(["mod_jk errors at Apache_2k.log:122 (05:12:10Z)."])
    service = await open_service(shared_store[0], model_embedder, llm)  # type: ignore[arg-type]

    result = await service.search_case_evidence(
        team_id=TEAM, case_id=CASE, query="mod_jk child workerEnv in error state"
    )

    assert result.answer == "mod_jk errors at Apache_2k.log:122 (05:12:10Z)."
    prompt = str(llm.calls[0]["messages"][1].content)  # type: ignore[index]
    assert "Cite as: Apache_2k.log:" in prompt
    assert "mod_jk child workerEnv in error state" in prompt


async def test_a_follow_up_question_is_searched_with_the_conversations_terms(
    shared_store: Store, model_embedder: object
) -> None:
    service = await open_service(shared_store[0], model_embedder)  # type: ignore[arg-type]
    conversation = [
        "What failed in Zookeeper_2k.log?",
        "Many WARN lines: Interrupted while waiting for message on queue",
    ]

    result = await service.search_case_evidence(
        team_id=TEAM, case_id=CASE, query="When did they start?", conversation=conversation
    )

    assert result.status is ToolStatus.OK
    assert result.query.startswith("When did they start? ")
    assert "Zookeeper_2k.log" in result.query
    assert result.chunks[0].citation.source == "Zookeeper_2k.log"
    assert "Interrupted while waiting for message on queue" in result.chunks[0].text


async def test_a_question_naming_a_time_range_is_filtered_by_it(
    shared_store: Store, model_embedder: object
) -> None:
    service = await open_service(shared_store[0], model_embedder)  # type: ignore[arg-type]

    result = await service.search_case_evidence(
        team_id=TEAM,
        case_id=CASE,
        query="what happened between 2015-10-18 18:05 and 2015-10-18 18:06",
    )

    assert result.filters is not None
    assert "ts_last >=" in result.filters
    for chunk in result.chunks:
        assert chunk.citation.timestamp is not None
        assert chunk.citation.timestamp.strftime("%Y-%m-%d %H") == "2015-10-18 18"
