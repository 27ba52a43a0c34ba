"""Migrations: empty → head → base → head, and the schema they build is exactly tables.py."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import inspect, text
from sqlalchemy.engine import Connection

from domain.scoring.model import Category
from storage import SqlScoreRepository
from storage.database.engine import create_engine, make_session_factory
from storage.schema.migrate import current_revision, downgrade, head_revision, upgrade
from storage.schema.tables import Base

TABLES = {
    "cases",
    "conversation_messages",
    "uploaded_files",
    "pending_confirmations",
    "inbox",
    "session_scores",
    "audit_log",
    "llm_calls",
    "alert_groups",
    "remediation_strategies",
    "posted_messages",
    "conclusion_feedback",
    "case_outcomes",
}
INITIAL_TABLES = TABLES - {
    "alert_groups",
    "remediation_strategies",
    "llm_calls",
    "posted_messages",
    "conclusion_feedback",
    "case_outcomes",
}


async def _inspect(url: str, look: Any) -> Any:
    engine = create_engine(url)
    try:
        async with engine.connect() as connection:
            return await connection.run_sync(look)
    finally:
        await engine.dispose()


def _tables(connection: Connection) -> set[str]:
    return set(inspect(connection).get_table_names()) - {"alembic_version"}


def _differences(connection: Connection) -> list[Any]:
    context = MigrationContext.configure(connection, opts={"compare_type": True})
    return list(compare_metadata(context, Base.metadata))


def _indexes(connection: Connection, table: str) -> dict[str, dict[str, Any]]:
    return {str(ix["name"]): dict(ix) for ix in inspect(connection).get_indexes(table)}


async def test_migrations_go_up_down_and_up_again(database_url: str) -> None:
    head = head_revision()
    assert head == "0007"
    assert await asyncio.to_thread(current_revision, database_url) is None

    await asyncio.to_thread(upgrade, database_url)
    assert await asyncio.to_thread(current_revision, database_url) == head
    assert await _inspect(database_url, _tables) == TABLES

    await asyncio.to_thread(downgrade, database_url, "base")
    assert await asyncio.to_thread(current_revision, database_url) is None
    assert await _inspect(database_url, _tables) == set()

    await asyncio.to_thread(upgrade, database_url)
    assert await asyncio.to_thread(current_revision, database_url) == head
    assert await _inspect(database_url, _tables) == TABLES


async def test_the_migrated_schema_matches_the_table_mappings(migrated_url: str) -> None:
    assert await _inspect(migrated_url, _differences) == []


async def test_the_active_scoring_index_is_unique_and_partial(migrated_url: str) -> None:
    indexes = await _inspect(migrated_url, lambda c: _indexes(c, "session_scores"))
    for name in (
        "ix_session_scores_case_id",
        "ix_session_scores_prompt_hash",
        "ix_session_scores_total_score",
        "ix_session_scores_status",
        "ix_session_scores_case_id_status",
        "ix_session_scores_status_started_at_us",
    ):
        assert name in indexes
    active = indexes["uq_session_scores_active_case"]
    assert active["unique"]
    assert active["column_names"] == ["case_id"]
    where = {k: v for k, v in active.get("dialect_options", {}).items() if k.endswith("_where")}
    assert any("pending" in str(v) and "in_progress" in str(v) for v in where.values())


def test_upgrade_creates_the_directory_of_a_sqlite_file(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path}/nested/data/fm.db"
    assert current_revision(url) is None
    assert not (tmp_path / "nested").exists(), "reading the revision must not create the file"

    upgrade(url)

    assert (tmp_path / "nested" / "data" / "fm.db").is_file()
    assert current_revision(url) == head_revision()


@pytest.mark.parametrize("revision", ["head", "0001", "0002", "0003", "0004"])
def test_upgrading_twice_changes_nothing(tmp_path: Path, revision: str) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path}/fm.db"
    upgrade(url, revision)
    upgrade(url, revision)
    expected = head_revision() if revision == "head" else revision
    assert current_revision(url) == expected


def test_an_existing_0001_database_gains_the_llm_call_table(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path}/fm.db"
    upgrade(url, "0001")
    upgrade(url)
    assert current_revision(url) == head_revision()


async def _count_scores(url: str) -> int:
    engine = create_engine(url)
    try:
        async with engine.connect() as connection:
            return int(
                (await connection.execute(text("SELECT count(*) FROM session_scores"))).scalar_one()
            )
    finally:
        await engine.dispose()


async def _insert_a_0001_score(url: str) -> None:
    engine = create_engine(url)
    try:
        async with engine.begin() as connection:
            await connection.execute(
                text(
                    "INSERT INTO cases (case_id, team_id, channel_id, thread_ts, short_id, status,"
                    " version, document, created_at, updated_at) VALUES ('case_1', 'T1', 'C1',"
                    " '1.1', 'FM-0001', 'resolved', 1, '{}', :at, :at)"
                ),
                {"at": datetime(2025, 12, 1, tzinfo=UTC)},
            )
            await connection.execute(
                text(
                    "INSERT INTO session_scores (score_id, case_id, prompt_hash, total_score,"
                    " score_triggered_by, scored_at_us, status, started_at_us) VALUES"
                    " ('s1', 'case_1', :hash, 70, 'U1', 1, 'completed', 1)"
                ),
                {"hash": "c" * 64},
            )
    finally:
        await engine.dispose()


async def test_scores_made_before_0003_survive_its_upgrade_and_downgrade(database_url: str) -> None:
    await asyncio.to_thread(upgrade, database_url, "0001")
    await _insert_a_0001_score(database_url)

    await asyncio.to_thread(upgrade, database_url)
    engine = create_engine(database_url)
    try:
        score = await SqlScoreRepository(make_session_factory(engine)).get("s1")
    finally:
        await engine.dispose()
    await asyncio.to_thread(downgrade, database_url, "0001")

    assert (score.total_score, score.facts, score.phase, score.message_ts) == (70, None, None, None)
    assert score.category_scores() == dict.fromkeys(Category)
    assert await _count_scores(database_url) == 1
    columns = await _inspect(database_url, lambda c: inspect(c).get_columns("session_scores"))
    assert "facts" not in {column["name"] for column in columns}


async def test_the_alerts_revision_goes_down_to_the_initial_schema(database_url: str) -> None:
    await asyncio.to_thread(upgrade, database_url)

    await asyncio.to_thread(downgrade, database_url, "0001")

    assert await asyncio.to_thread(current_revision, database_url) == "0001"
    assert await _inspect(database_url, _tables) == INITIAL_TABLES


async def test_the_active_alert_group_index_is_unique_and_partial(migrated_url: str) -> None:
    indexes = await _inspect(migrated_url, lambda c: _indexes(c, "alert_groups"))
    active = indexes["uq_alert_groups_active_group"]
    assert active["unique"]
    assert active["column_names"] == ["team_id", "group_hash"]
    where = {k: v for k, v in active.get("dialect_options", {}).items() if k.endswith("_where")}
    assert any("retired_at" in str(v) for v in where.values())


async def _a_0005_case_with_its_messages(url: str) -> None:
    """A case as 0005 kept it: message refs in a confirmation, a strategy and the audit log."""
    document = json.dumps(
        {"confirmations": [{"confirmation_id": "conf_1", "surface_ref": "1.5", "prompt": "?"}]}
    )
    at = {"at": datetime(2026, 11, 1, tzinfo=UTC)}
    rows = [
        (
            "INSERT INTO cases (case_id, team_id, channel_id, thread_ts, short_id, status, version,"
            " document, created_at, updated_at) VALUES ('case_1', 'T1', 'C1', '1.1', 'FM-0001',"
            " 'consulting', 1, :document, :at, :at)",
            {**at, "document": document},
        ),
        (
            "INSERT INTO pending_confirmations (confirmation_id, case_id, kind, state, payload,"
            " answerable_by, prompt, proposed_at, proposed_by, proposed_at_turn, surface_ref)"
            " VALUES ('conf_1', 'case_1', 'status_change', 'pending', '{}', '[]', '?', :at,"
            " 'agent', 0, '1.5')",
            at,
        ),
        (
            "INSERT INTO audit_log (team_id, case_id, actor, action, detail, source, at) VALUES"
            " ('T1', 'case_1', 'faultmaven', 'slack.header_posted', :detail, 'system', :at)",
            {**at, "detail": json.dumps({"ts": "1.2", "opened_by": "U1"})},
        ),
        (
            "INSERT INTO audit_log (team_id, case_id, actor, action, detail, source, at) VALUES"
            " ('T1', 'case_1', 'faultmaven', 'slack.placeholder_posted', :detail, 'system', :at)",
            {**at, "detail": json.dumps({"ts": "1.3", "work": "Ev1"})},
        ),
        (
            "INSERT INTO audit_log (team_id, case_id, actor, action, detail, source, at) VALUES"
            " ('T1', 'case_1', 'U1', 'confirmation.answered', '{}', 'slack:button', :at)",
            at,
        ),
    ]
    engine = create_engine(url)
    try:
        async with engine.begin() as connection:
            for statement, values in rows:
                await connection.execute(text(statement), values)
    finally:
        await engine.dispose()


async def _rows(url: str, query: str) -> list[tuple[Any, ...]]:
    engine = create_engine(url)
    try:
        async with engine.connect() as connection:
            return [tuple(row) for row in await connection.execute(text(query))]
    finally:
        await engine.dispose()


async def test_0006_moves_every_message_ref_into_one_table_and_leaves_the_audit_log_clean(
    database_url: str,
) -> None:
    await asyncio.to_thread(upgrade, database_url, "0005")
    await _a_0005_case_with_its_messages(database_url)

    await asyncio.to_thread(upgrade, database_url)

    posted = await _rows(database_url, "SELECT kind, key, ts FROM posted_messages ORDER BY kind")
    assert posted == [
        ("header", "", "1.2"),
        ("placeholder", "Ev1", "1.3"),
        ("prompt", "conf_1", "1.5"),
    ]
    actions = await _rows(database_url, "SELECT action FROM audit_log")
    assert actions == [("confirmation.answered",)]
    (document,) = await _rows(database_url, "SELECT document FROM cases")
    stored = document[0] if isinstance(document[0], dict) else json.loads(document[0])
    assert stored["confirmations"] == [{"confirmation_id": "conf_1", "prompt": "?"}]
