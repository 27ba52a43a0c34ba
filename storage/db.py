"""Engine and session factory from an injected URL; SQLite gets the pragmas it needs."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, cast
from weakref import WeakKeyDictionary

from sqlalchemy import ColumnElement, Executable, event, exists, select
from sqlalchemy.engine import URL, Connection, CursorResult, Engine, make_url
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker
from sqlalchemy.ext.asyncio import create_async_engine as _create_async_engine
from sqlalchemy.pool import NullPool, PoolProxiedConnection

WRITE_INTENT = "fm_write_intent"
"""Execution option marking a transaction that will write (SQLite: BEGIN IMMEDIATE)."""

_SQLITE_PRAGMAS = ("PRAGMA journal_mode=WAL", "PRAGMA busy_timeout=5000")

# SQLite has one writer at a time; a connection waiting for the lock sleeps in SQLite's busy
# handler (1 ms, then up to 100 ms a try), so under many concurrent writers the waits, not the
# writes, dominate. Queuing this process's writers on an asyncio lock first hands the database
# from one writer to the next at once; other processes are still held off by busy_timeout.
_SQLITE_WRITERS: WeakKeyDictionary[Engine, asyncio.Lock] = WeakKeyDictionary()


def create_engine(url: str, *, migrating: bool = False) -> AsyncEngine:
    """An async engine for ``url``; ``migrating`` disables pooling and SQLite foreign keys."""
    parsed = make_url(url)
    sqlite = is_sqlite(parsed)
    options: dict[str, Any] = {}
    if migrating:
        # A one-shot migration run should leave no pooled connection behind.
        options["poolclass"] = NullPool
    elif not sqlite:
        options["pool_pre_ping"] = True
    if sqlite:
        ensure_sqlite_directory(parsed)
    engine = _create_async_engine(parsed, **options)
    if sqlite:
        # Rebuilding a parent table in a SQLite migration must not cascade-delete its children.
        _install_sqlite_hooks(engine, foreign_keys=not migrating)
        _SQLITE_WRITERS[engine.sync_engine] = asyncio.Lock()
    return engine


def make_session_factory(engine: AsyncEngine) -> async_sessionmaker[AsyncSession]:
    """Sessions whose objects stay readable after commit (repositories return copies)."""
    return async_sessionmaker(engine, expire_on_commit=False)


@asynccontextmanager
async def writing(sessions: async_sessionmaker[AsyncSession]) -> AsyncIterator[AsyncSession]:
    """A session inside one transaction that writes; committed on success, else rolled back."""
    async with _one_writer(sessions), sessions() as session, session.begin():
        # Declaring the intent up front lets SQLite take the write lock at BEGIN, so a
        # read-then-write transaction never fails to upgrade its lock under contention.
        await session.connection(execution_options={WRITE_INTENT: True})
        yield session


def _one_writer(
    sessions: async_sessionmaker[AsyncSession],
) -> contextlib.AbstractAsyncContextManager[Any]:
    """This process's turn to write, for SQLite engines; nothing to wait for otherwise."""
    bind = sessions.kw.get("bind")
    lock = _SQLITE_WRITERS.get(bind.sync_engine) if isinstance(bind, AsyncEngine) else None
    return lock if lock is not None else contextlib.nullcontext()


async def any_row(sessions: async_sessionmaker[AsyncSession], where: ColumnElement[bool]) -> bool:
    """Whether any row matches (a fresh read, e.g. to explain an IntegrityError)."""
    async with sessions() as session:
        return bool(await session.scalar(select(exists().where(where))))


async def affected(session: AsyncSession, statement: Executable) -> int:
    """Run an UPDATE or DELETE without touching loaded objects; return how many rows matched."""
    result = await session.execute(statement, execution_options={"synchronize_session": False})
    return cast(CursorResult[Any], result).rowcount


def is_sqlite(url: str | URL) -> bool:
    """Whether the URL points at SQLite."""
    return make_url(url).get_backend_name() == "sqlite"


def ensure_sqlite_directory(url: str | URL) -> None:
    """Create the directory a SQLite file lives in (SQLite cannot create it itself)."""
    parsed = make_url(url)
    database = parsed.database
    if not database or database == ":memory:" or parsed.query.get("uri"):
        return
    Path(database).expanduser().parent.mkdir(parents=True, exist_ok=True)


def _install_sqlite_hooks(engine: AsyncEngine, *, foreign_keys: bool) -> None:
    pragmas = (f"PRAGMA foreign_keys={'ON' if foreign_keys else 'OFF'}", *_SQLITE_PRAGMAS)

    def on_connect(dbapi_connection: Any, _record: PoolProxiedConnection) -> None:
        # The sqlite3 driver's legacy mode defers BEGIN to the first write, which breaks
        # repeatable reads and SAVEPOINT; SQLAlchemy emits BEGIN itself instead (see _on_begin).
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        for pragma in pragmas:
            cursor.execute(pragma)
        cursor.close()

    event.listen(engine.sync_engine, "connect", on_connect)
    event.listen(engine.sync_engine, "begin", _on_begin)


def _on_begin(connection: Connection) -> None:
    immediate = connection.get_execution_options().get(WRITE_INTENT, False)
    connection.exec_driver_sql("BEGIN IMMEDIATE" if immediate else "BEGIN")
