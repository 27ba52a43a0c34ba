"""Migrations: empty → head → base → head, and the schema they build is exactly tables.py."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import inspect
from sqlalchemy.engine import Connection

from storage.db import create_engine
from storage.migrate import current_revision, downgrade, head_revision, upgrade
from storage.tables import Base

TABLES = {
    "cases",
    "conversation_messages",
    "uploaded_files",
    "pending_confirmations",
    "inbox",
    "session_scores",
    "audit_log",
    "alert_groups",
    "remediation_strategies",
}
INITIAL_TABLES = TABLES - {"alert_groups", "remediation_strategies"}


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
    assert head == "0004"
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


@pytest.mark.parametrize(("revision", "expected"), [("head", "0004"), ("0001", "0001")])
def test_upgrading_twice_changes_nothing(tmp_path: Path, revision: str, expected: str) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path}/fm.db"
    upgrade(url, revision)
    upgrade(url, revision)
    assert current_revision(url) == expected


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
