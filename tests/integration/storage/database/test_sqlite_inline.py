"""SQLite statements run on the event loop's thread: a transaction is one piece of loop work."""

from __future__ import annotations

import asyncio
import sqlite3
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from sqlalchemy import event, text
from sqlalchemy.exc import IntegrityError, OperationalError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from storage.database import sqlite_inline
from storage.database.engine import create_engine, make_session_factory, writing


async def test_a_write_transaction_never_waits_for_the_event_loop(tmp_path: Path) -> None:
    engine = create_engine(f"sqlite+aiosqlite:///{tmp_path}/fm.db")
    sessions = make_session_factory(engine)
    others: list[str] = []
    seen_at_commit: list[list[str]] = []
    event.listen(engine.sync_engine, "commit", lambda _: seen_at_commit.append(list(others)))
    try:
        async with writing(sessions) as session:
            await session.execute(text("CREATE TABLE t (k TEXT PRIMARY KEY, v TEXT)"))
        asyncio.get_running_loop().call_soon(others.append, "another case's work")

        async with writing(sessions) as session:
            await session.execute(text("INSERT INTO t VALUES ('a', '1')"))
            await session.execute(text("UPDATE t SET v = '2' WHERE k = 'a'"))
    finally:
        await engine.dispose()

    # With a driver thread, each statement waited for a turn of the loop while holding the
    # database's one write lock; inline, nothing else ran from BEGIN to COMMIT.
    assert seen_at_commit[-1] == []
    assert others == ["another case's work"]  # it ran once the transaction was over


@pytest.fixture
async def sessions(tmp_path: Path) -> AsyncIterator[async_sessionmaker[AsyncSession]]:
    engine = create_engine(f"sqlite+aiosqlite:///{tmp_path}/fm.db")
    try:
        yield make_session_factory(engine)
    finally:
        await engine.dispose()


async def _run(sessions: async_sessionmaker[AsyncSession], *statements: str) -> None:
    async with writing(sessions) as session:
        for statement in statements:
            await session.execute(text(statement))


async def test_constraint_and_syntax_errors_are_sqlalchemys_as_before(
    sessions: async_sessionmaker[AsyncSession],
) -> None:
    await _run(sessions, "CREATE TABLE t (k TEXT PRIMARY KEY)", "INSERT INTO t VALUES ('a')")

    with pytest.raises(IntegrityError):
        await _run(sessions, "INSERT INTO t VALUES ('b')", "INSERT INTO t VALUES ('a')")
    async with sessions() as session:
        with pytest.raises(OperationalError):
            await session.execute(text("SELECT nothing FROM nowhere"))
        keys = (await session.scalars(text("SELECT k FROM t"))).all()

    assert keys == ["a"]  # the failed transaction left nothing behind


async def test_a_reader_sees_only_committed_rows_while_a_write_is_open(
    sessions: async_sessionmaker[AsyncSession],
) -> None:
    await _run(sessions, "CREATE TABLE t (k TEXT)")

    async with writing(sessions) as writer:
        await writer.execute(text("INSERT INTO t VALUES ('pending')"))
        async with sessions() as reader:
            during = await reader.scalar(text("SELECT count(*) FROM t"))
    async with sessions() as reader:
        after = await reader.scalar(text("SELECT count(*) FROM t"))

    assert (during, after) == (0, 1)


async def test_an_in_memory_database_is_one_shared_connection() -> None:
    engine = create_engine("sqlite+aiosqlite://")
    sessions = make_session_factory(engine)
    try:
        async with writing(sessions) as session:
            await session.execute(text("CREATE TABLE t (k TEXT)"))
            await session.execute(text("INSERT INTO t VALUES ('x')"))
        async with sessions() as session:
            count = await session.scalar(text("SELECT count(*) FROM t"))
    finally:
        await engine.dispose()
    assert count == 1


async def test_another_process_holding_the_write_lock_is_waited_for_with_the_loop_free(
    sessions: async_sessionmaker[AsyncSession], tmp_path: Path
) -> None:
    await _run(sessions, "CREATE TABLE t (k TEXT)")
    other = sqlite3.connect(tmp_path / "fm.db", isolation_level=None)  # another process, say
    other.execute("BEGIN IMMEDIATE")
    asyncio.get_running_loop().call_later(0.3, other.execute, "COMMIT")
    ticks = 0

    async def the_rest_of_the_bot() -> None:
        nonlocal ticks
        while True:
            ticks += 1
            await asyncio.sleep(0.01)

    ticking = asyncio.create_task(the_rest_of_the_bot())
    started = time.monotonic()
    await _run(sessions, "INSERT INTO t VALUES ('x')")
    waited = time.monotonic() - started
    ticking.cancel()
    other.close()

    assert waited >= 0.25
    assert ticks >= 10  # acknowledgements and other cases went on meanwhile


async def test_waiting_for_another_writer_has_a_limit(
    sessions: async_sessionmaker[AsyncSession], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sqlite_inline, "LOCK_WAIT_S", 0.2)
    await _run(sessions, "CREATE TABLE t (k TEXT)")
    other = sqlite3.connect(tmp_path / "fm.db", isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    try:
        with pytest.raises(OperationalError, match="locked"):
            await _run(sessions, "INSERT INTO t VALUES ('x')")
    finally:
        other.execute("ROLLBACK")
        other.close()
