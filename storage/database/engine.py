"""Engine and session factory from an injected URL; SQLite gets its pragmas and runs inline."""

from __future__ import annotations

import asyncio
import contextlib
from collections import deque
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

from storage.database.sqlite_inline import BUSY_TIMEOUT_MS, inline_creator

WRITE_INTENT = "fm_write_intent"
"""Execution option marking a transaction that will write (SQLite: BEGIN IMMEDIATE)."""
DURABLE = "fm_durable"
"""Execution option marking a write that must be on disk when it commits (SQLite: fsync)."""

_SYNCHRONOUS = "fm_synchronous"
"""Where a SQLite connection's ``info`` remembers its current ``synchronous`` level."""
_SQLITE_PRAGMAS = ("PRAGMA journal_mode=WAL", f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")


class WriterQueue:
    """One writer at a time, handed over in order; urgent writers go before the others.

    SQLite has one writer at a time, and a connection waiting for its lock sleeps in SQLite's
    busy handler (1 ms, then up to 100 ms a try). Statements run inline (`sqlite_inline`), so a
    transaction that awaits nothing but the database never lets another writer in; one that
    awaits something else meanwhile makes the others queue here, in order, instead of in the
    busy handler, with recording what people sent (the inbox) first. Other processes are still
    waited for, with the loop free (see `sqlite_inline`).
    """

    def __init__(self) -> None:
        self._busy = False
        self._urgent: deque[asyncio.Future[None]] = deque()
        self._normal: deque[asyncio.Future[None]] = deque()

    @asynccontextmanager
    async def turn(self, *, urgent: bool = False) -> AsyncIterator[None]:
        """Wait for this writer's turn; hand it on when the block ends."""
        if self._busy:
            waiter = asyncio.get_running_loop().create_future()
            (self._urgent if urgent else self._normal).append(waiter)
            try:
                await waiter
            except asyncio.CancelledError:
                if waiter.done() and not waiter.cancelled():
                    self._hand_over()  # handed the turn just as it was cancelled
                raise
        else:
            self._busy = True
        try:
            yield
        finally:
            self._hand_over()

    def _hand_over(self) -> None:
        for waiting in (self._urgent, self._normal):
            while waiting:
                waiter = waiting.popleft()
                if not waiter.done():  # a cancelled waiter is skipped
                    waiter.set_result(None)
                    return
        self._busy = False


_SQLITE_WRITERS: WeakKeyDictionary[Engine, WriterQueue] = WeakKeyDictionary()


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
        options["async_creator"] = inline_creator(
            parsed.database or ":memory:", uri=bool(parsed.query.get("uri"))
        )
    engine = _create_async_engine(parsed, **options)
    if sqlite:
        # Rebuilding a parent table in a SQLite migration must not cascade-delete its children.
        _install_sqlite_hooks(engine, foreign_keys=not migrating)
        _SQLITE_WRITERS[engine.sync_engine] = WriterQueue()
    return engine


def make_session_factory(engine: AsyncEngine) -> async_sessionmaker[AsyncSession]:
    """Sessions whose objects stay readable after commit (repositories return copies)."""
    return async_sessionmaker(engine, expire_on_commit=False)


@asynccontextmanager
async def writing(
    sessions: async_sessionmaker[AsyncSession], *, urgent: bool = False
) -> AsyncIterator[AsyncSession]:
    """A session inside one transaction that writes; committed on success, else rolled back.

    ``urgent`` writes (recording what people sent) go before others waiting in this process, and
    are on disk when they commit, since an acknowledgement follows them. With SQLite the others
    are not synced one by one (``synchronous=NORMAL``): a power cut may take the last few of
    them back, never one without those before it (the WAL is replayed in order up to the first
    incomplete commit), and an urgent commit syncs everything before it too. What was taken
    back is redone from the inbox, whose items it had not yet marked done.
    """
    # The writer's turn ends with the commit: closing the session afterwards waits for a turn
    # of the event loop (SQLAlchemy shields it in a task), and nobody need wait for that.
    async with sessions() as session, _one_writer(sessions, urgent), session.begin():
        # Declaring the intent up front lets SQLite take the write lock at BEGIN, so a
        # read-then-write transaction never fails to upgrade its lock under contention.
        await session.connection(execution_options={WRITE_INTENT: True, DURABLE: urgent})
        yield session


def _one_writer(
    sessions: async_sessionmaker[AsyncSession], urgent: bool
) -> contextlib.AbstractAsyncContextManager[Any]:
    """This process's turn to write, for SQLite engines; nothing to wait for otherwise."""
    bind = sessions.kw.get("bind")
    queue = _SQLITE_WRITERS.get(bind.sync_engine) if isinstance(bind, AsyncEngine) else None
    return queue.turn(urgent=urgent) if queue is not None else contextlib.nullcontext()


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
    options = connection.get_execution_options()
    if not options.get(WRITE_INTENT, False):
        connection.exec_driver_sql("BEGIN")
        return
    # A write's fsync blocks the event loop (statements run inline): only those that must.
    # SQLite refuses to change it inside a transaction, so it is set before one, when it differs
    # from what this connection (``info`` lives as long as it) was last set to.
    level = "FULL" if options.get(DURABLE, False) else "NORMAL"
    if connection.info.get(_SYNCHRONOUS) != level:
        connection.exec_driver_sql(f"PRAGMA synchronous={level}")
        connection.info[_SYNCHRONOUS] = level
    connection.exec_driver_sql("BEGIN IMMEDIATE")
