"""SQLite for SQLAlchemy's asyncio engine, run on the event loop's own thread.

aiosqlite runs each call on a worker thread and hands the result back through the event loop:
creating a cursor, executing, fetching and closing each wait for a turn of the loop. A write
transaction is about fifteen such turns, and SQLite has one writer at a time, so under a burst
(fifty cases opening at once) the write lock sat idle while its holder waited for the loop, and
every case queued behind it. A local SQLite statement takes microseconds; run inline, a
transaction is one piece of work for the loop instead of fifteen.

The connection offers the parts of aiosqlite's interface that SQLAlchemy's ``aiosqlite``
dialect uses (it is given as that dialect's ``async_creator``), with coroutines that finish
without suspending. A statement blocks the loop while it runs: microseconds for this bot's
statements. The one long wait SQLite can have, another *process* holding the write lock (a
migration, a second bot on the same file), is not spent inside SQLite: ``busy_timeout`` is short,
and ``BEGIN IMMEDIATE`` is retried with the loop free in between, for up to `LOCK_WAIT_S`. This
process's own writers queue in `engine.WriterQueue` and never wait for each other in SQLite.
"""

from __future__ import annotations

import asyncio
import sqlite3
import time
from collections.abc import Callable, Iterable
from typing import Any

BUSY_TIMEOUT_MS = 20
"""How long one statement may wait inside SQLite for a lock (blocking the loop meanwhile)."""
LOCK_WAIT_S = 5.0
"""How long taking the write lock may wait for another process, the loop free meanwhile."""
_LOCKED = {sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED}
_RETRY_FIRST_S, _RETRY_MAX_S = 0.005, 0.1


class InlineCursor:
    """An aiosqlite-shaped cursor whose coroutines finish at once."""

    def __init__(self, cursor: sqlite3.Cursor) -> None:
        self._cursor = cursor

    async def __aenter__(self) -> InlineCursor:
        return self

    async def __aexit__(self, *exc: object) -> None:
        self._cursor.close()

    async def execute(self, sql: str, parameters: Any = ()) -> InlineCursor:
        if sql.startswith("BEGIN IMMEDIATE"):
            await self._take_write_lock(sql)
        else:
            self._cursor.execute(sql, parameters)
        return self

    async def _take_write_lock(self, sql: str) -> None:
        deadline = time.monotonic() + LOCK_WAIT_S
        wait = _RETRY_FIRST_S
        while True:
            try:
                self._cursor.execute(sql)
                return
            except sqlite3.OperationalError as error:
                if error.sqlite_errorcode not in _LOCKED or time.monotonic() >= deadline:
                    raise
            await asyncio.sleep(wait)
            wait = min(wait * 2, _RETRY_MAX_S)

    async def executemany(self, sql: str, parameters: Iterable[Any]) -> InlineCursor:
        self._cursor.executemany(sql, parameters)
        return self

    async def fetchone(self) -> Any:
        return self._cursor.fetchone()

    async def fetchmany(self, size: int | None = None) -> list[Any]:
        return self._cursor.fetchmany(size if size is not None else self._cursor.arraysize)

    async def fetchall(self) -> list[Any]:
        return self._cursor.fetchall()

    async def close(self) -> None:
        self._cursor.close()

    async def nextset(self) -> None:
        return None

    async def setinputsizes(self, *sizes: Any) -> None:
        return None

    @property
    def description(self) -> Any:
        return self._cursor.description

    @property
    def rowcount(self) -> int:
        return self._cursor.rowcount

    @property
    def lastrowid(self) -> int | None:
        return self._cursor.lastrowid

    @property
    def arraysize(self) -> int:
        return self._cursor.arraysize

    @arraysize.setter
    def arraysize(self, value: int) -> None:
        self._cursor.arraysize = value


class _Immediately:
    """Stands in for aiosqlite's queue to its thread: runs the function now."""

    def put_nowait(self, job: tuple[asyncio.Future[Any] | None, Callable[[], Any]]) -> None:
        future, function = job
        try:
            result = function()
        except Exception as error:
            if future is not None:
                future.set_exception(error)
        else:
            if future is not None:
                future.set_result(result)


class InlineConnection:
    """An aiosqlite-shaped connection whose coroutines finish at once."""

    def __init__(self, connection: sqlite3.Connection) -> None:
        self._conn = connection
        self._connection: sqlite3.Connection | None = connection
        self._tx = _Immediately()

    @property
    def isolation_level(self) -> str | None:
        return self._conn.isolation_level

    def cursor(self) -> InlineCursor:
        return InlineCursor(self._conn.cursor())

    async def execute(self, sql: str, parameters: Any = ()) -> InlineCursor:
        return await self.cursor().execute(sql, parameters)

    async def commit(self) -> None:
        self._conn.commit()

    async def rollback(self) -> None:
        self._conn.rollback()

    async def create_function(self, *args: Any, **kwargs: Any) -> None:
        self._conn.create_function(*args, **kwargs)

    async def close(self) -> None:
        self.stop()

    def stop(self) -> None:
        """What SQLAlchemy calls to terminate a connection without waiting (closing is the same)."""
        if self._connection is not None:
            self._connection = None
            self._conn.close()


def inline_creator(database: str, **options: Any) -> Callable[[], Any]:
    """The ``async_creator`` for `create_async_engine`: connections to ``database``."""

    async def connect() -> InlineConnection:
        # Used only on the event loop's thread; SQLAlchemy may close it from elsewhere at exit.
        connection = sqlite3.connect(database, check_same_thread=False, **options)
        return InlineConnection(connection)

    return connect
