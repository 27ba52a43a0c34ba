"""The inline SQLite connection offers what SQLAlchemy's aiosqlite adapter uses, synchronously."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from storage.database.sqlite_inline import InlineConnection, inline_creator


async def connect(tmp_path: Path) -> InlineConnection:
    connection = await inline_creator(str(tmp_path / "t.db"), uri=False)()
    assert isinstance(connection, InlineConnection)
    return connection


async def test_the_cursor_interface_reads_and_writes(tmp_path: Path) -> None:
    connection = await connect(tmp_path)
    await connection.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT)")
    async with connection.cursor() as cursor:
        await cursor.executemany("INSERT INTO t (name) VALUES (?)", [("a",), ("b",), ("c",)])
        assert cursor.rowcount == 3
        await cursor.execute("INSERT INTO t (name) VALUES (?)", ("d",))
        assert cursor.lastrowid == 4
        cursor.arraysize = 2
        await cursor.execute("SELECT name FROM t ORDER BY id")
        assert cursor.description[0][0] == "name"
        assert cursor.arraysize == 2
        assert await cursor.fetchone() == ("a",)
        assert await cursor.fetchmany() == [("b",), ("c",)]
        assert await cursor.fetchmany(5) == [("d",)]
        await cursor.nextset()
        await cursor.setinputsizes()
    await connection.commit()
    await connection.close()
    await connection.close()  # closing twice is harmless


async def test_setting_a_property_through_the_driver_queue_runs_at_once(tmp_path: Path) -> None:
    connection = await connect(tmp_path)
    loop = asyncio.get_running_loop()
    done, failed = loop.create_future(), loop.create_future()

    def level(value: Any) -> None:
        connection._conn.isolation_level = value  # what SQLAlchemy does too

    connection._tx.put_nowait((done, lambda: level(None)))
    connection._tx.put_nowait((failed, lambda: level("NOT A LEVEL")))

    assert done.result() is None
    assert connection.isolation_level is None
    with pytest.raises(ValueError, match="isolation"):
        failed.result()
    connection.stop()
    connection.stop()


async def test_a_rolled_back_write_leaves_nothing(tmp_path: Path) -> None:
    connection = await connect(tmp_path)
    await connection.execute("CREATE TABLE t (k TEXT)")
    await connection.commit()
    await connection.execute("INSERT INTO t VALUES ('x')")
    await connection.rollback()
    await connection.create_function("twice", 1, lambda v: v * 2)
    rows = await (await connection.execute("SELECT count(*), twice(2) FROM t")).fetchall()
    await connection.close()
    assert rows == [(0, 4)]
    with pytest.raises(sqlite3.ProgrammingError):
        connection.cursor()
