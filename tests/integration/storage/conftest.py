"""Storage fixtures: a migrated SQLite file, and PostgreSQL when FM_TEST_DATABASE_URL is set."""

# For PostgreSQL the suite creates its own scratch database (the role needs CREATEDB) and drops
# it at the end of the session, so the database named in the URL is never touched. Tests that
# need an empty database get its `public` schema recreated; the others share one migration and
# find every table truncated, which keeps the PostgreSQL run fast.

from __future__ import annotations

import asyncio
import os
import uuid
from collections.abc import AsyncIterator, Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker

from storage import Repositories, build_repositories
from storage.database.engine import create_engine, make_session_factory
from storage.schema.migrate import upgrade
from storage.schema.tables import Base

POSTGRES_URL = os.environ.get("FM_TEST_DATABASE_URL", "")
RESET_SCHEMA = ("DROP SCHEMA public CASCADE", "CREATE SCHEMA public")
TRUNCATE_ALL = (
    f"TRUNCATE {', '.join(t.name for t in Base.metadata.sorted_tables)} RESTART IDENTITY CASCADE"
)


def _backends() -> list[object]:
    backends: list[object] = [pytest.param("sqlite", id="sqlite")]
    if POSTGRES_URL:
        backends.append(pytest.param("postgres", id="postgres", marks=pytest.mark.postgres))
    return backends


def _dsn(url: str) -> str:
    """The URL as a plain DSN for asyncpg (no SQLAlchemy driver suffix)."""
    return make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)


async def _execute(dsn: str, *statements: str) -> None:
    import asyncpg  # only the PostgreSQL runs need the optional driver

    connection = await asyncpg.connect(dsn)
    try:
        for statement in statements:
            await connection.execute(statement)
    finally:
        await connection.close()


def _off_loop(work: Callable[..., object], *args: Any) -> None:
    # Sync fixtures must not touch the test's event loop: this gets a thread (and loop) of its own.
    with ThreadPoolExecutor(max_workers=1) as pool:
        pool.submit(work, *args).result()


def _execute_off_loop(url: str, *statements: str) -> None:
    _off_loop(asyncio.run, _execute(_dsn(url), *statements))


class ScratchDatabase:
    """The session's PostgreSQL database: migrated once, emptied between tests."""

    def __init__(self, url: str) -> None:
        self.url = url
        self._migrated = False

    def empty(self) -> str:
        """No tables at all (for migration tests)."""
        _execute_off_loop(self.url, *RESET_SCHEMA)
        self._migrated = False
        return self.url

    def migrated(self) -> str:
        """At the head revision with every table empty."""
        if self._migrated:
            _execute_off_loop(self.url, TRUNCATE_ALL)
        else:
            self.empty()
            _off_loop(upgrade, self.url)
            self._migrated = True
        return self.url


@pytest.fixture(scope="session")
def postgres() -> Iterator[ScratchDatabase]:
    """A scratch PostgreSQL database for this test session, dropped at the end."""
    name = f"fm_test_{uuid.uuid4().hex[:12]}"
    _execute_off_loop(POSTGRES_URL, f'CREATE DATABASE "{name}"')
    try:
        yield ScratchDatabase(make_url(POSTGRES_URL).set(database=name).render_as_string(False))
    finally:
        drop = f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'
        _execute_off_loop(POSTGRES_URL, drop)


@pytest.fixture(params=_backends())
def backend(request: pytest.FixtureRequest) -> str:
    """Which database the test runs against."""
    return str(request.param)


@pytest.fixture
def database_url(backend: str, tmp_path: Path, request: pytest.FixtureRequest) -> str:
    """An empty database: a fresh SQLite file, or the scratch PostgreSQL database reset."""
    if backend == "sqlite":
        return f"sqlite+aiosqlite:///{tmp_path}/fm.db"
    scratch: ScratchDatabase = request.getfixturevalue("postgres")
    return scratch.empty()


@pytest.fixture
async def migrated_url(backend: str, tmp_path: Path, request: pytest.FixtureRequest) -> str:
    """A database at the head revision with no rows (migrations run on a worker thread)."""
    if backend == "sqlite":
        url = f"sqlite+aiosqlite:///{tmp_path}/fm.db"
        await asyncio.to_thread(upgrade, url)
        return url
    scratch: ScratchDatabase = request.getfixturevalue("postgres")
    return scratch.migrated()


@pytest.fixture
async def engine(migrated_url: str) -> AsyncIterator[AsyncEngine]:
    """The application's engine on the migrated database, disposed after the test."""
    engine = create_engine(migrated_url)
    yield engine
    await engine.dispose()


@pytest.fixture
def sessions(engine: AsyncEngine) -> async_sessionmaker[AsyncSession]:
    """The application's session factory."""
    return make_session_factory(engine)


@pytest.fixture
def repos(sessions: async_sessionmaker[AsyncSession]) -> Repositories:
    """Every SQL repository, as the composition root builds them."""
    return build_repositories(sessions)
