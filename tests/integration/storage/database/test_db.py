"""Engine set-up: SQLite pragmas, real transactions, and timezone-aware datetimes."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from sqlalchemy import select, text
from sqlalchemy.exc import StatementError
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker

from domain.records import AuditEntry
from storage import Repositories
from storage.database.engine import create_engine, make_session_factory, writing
from storage.database.sqlite_inline import BUSY_TIMEOUT_MS
from storage.schema.tables import AuditRow


async def test_sqlite_connections_enforce_foreign_keys_and_use_wal(tmp_path: Path) -> None:
    engine = create_engine(f"sqlite+aiosqlite:///{tmp_path}/new/dir/fm.db")
    try:
        async with engine.connect() as connection:
            pragmas = {
                name: (await connection.exec_driver_sql(f"PRAGMA {name}")).scalar()
                for name in ("foreign_keys", "journal_mode", "busy_timeout")
            }
    finally:
        await engine.dispose()
    assert pragmas == {"foreign_keys": 1, "journal_mode": "wal", "busy_timeout": BUSY_TIMEOUT_MS}
    assert (tmp_path / "new" / "dir" / "fm.db").is_file()


async def test_only_writes_an_acknowledgement_follows_wait_for_the_disk(tmp_path: Path) -> None:
    # Recording what people sent is synced at commit (FULL); the bot's own writes are not
    # synced one by one (NORMAL), since each sync blocks the event loop.
    engine = create_engine(f"sqlite+aiosqlite:///{tmp_path}/fm.db")
    sessions = make_session_factory(engine)
    levels = []
    try:
        for urgent in (True, False, True):
            async with writing(sessions, urgent=urgent) as session:
                levels.append((await session.execute(text("PRAGMA synchronous"))).scalar())
    finally:
        await engine.dispose()
    full, normal = 2, 1
    assert levels == [full, normal, full]


async def test_a_sqlite_transaction_rolls_back_whole(tmp_path: Path) -> None:
    engine = create_engine(f"sqlite+aiosqlite:///{tmp_path}/fm.db")
    try:
        async with engine.begin() as connection:
            await connection.exec_driver_sql("CREATE TABLE t (x INTEGER)")
        with pytest.raises(RuntimeError):
            await _insert_release_savepoint_then_abort(engine)
        async with engine.connect() as connection:
            count = (await connection.exec_driver_sql("SELECT count(*) FROM t")).scalar()
    finally:
        await engine.dispose()
    assert count == 0


async def _insert_release_savepoint_then_abort(engine: AsyncEngine) -> None:
    async with engine.begin() as connection:
        # A savepoint before any write: the sqlite3 driver's legacy mode would commit it alone.
        async with connection.begin_nested() as savepoint:
            await connection.exec_driver_sql("INSERT INTO t VALUES (1)")
            await savepoint.commit()
        await connection.exec_driver_sql("INSERT INTO t VALUES (2)")
        raise RuntimeError("abort")


def test_nothing_is_connected_before_first_use(tmp_path: Path) -> None:
    create_engine(f"sqlite+aiosqlite:///{tmp_path}/lazy.db")
    assert not (tmp_path / "lazy.db").exists()


async def test_datetimes_read_back_aware_in_utc(
    repos: Repositories, sessions: async_sessionmaker[AsyncSession]
) -> None:
    tokyo = timezone(timedelta(hours=9))
    moment = datetime(2026, 11, 21, 23, 30, 0, 250_000, tzinfo=tokyo)
    await repos.audit.record(
        AuditEntry(team_id="T1", case_id="c", actor="U1", action="x", source="console", at=moment)
    )

    (entry,) = await repos.audit.list_for_case("c")
    async with sessions() as session:
        stored = await session.scalar(select(AuditRow.at))

    assert entry.at == moment
    assert entry.at.utcoffset() == timedelta(0)
    assert stored is not None
    assert stored.tzinfo is not None


async def test_naive_datetimes_are_refused(engine: AsyncEngine) -> None:
    naive = datetime(2026, 11, 21, 12, 0)
    with pytest.raises(StatementError, match="naive"):
        async with engine.begin() as connection:
            await connection.execute(
                AuditRow.__table__.insert().values(
                    team_id="T1", actor="U1", action="x", detail={}, source="s", at=naive
                )
            )
    async with engine.connect() as connection:
        assert (await connection.execute(text("SELECT count(*) FROM audit_log"))).scalar() == 0
