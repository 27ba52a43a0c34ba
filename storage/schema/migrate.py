"""Schema migrations for plain synchronous code: apply, revert, and read the revision."""

# Every function here runs its own event loop (asyncio.run, in env.py or below), so call them
# from synchronous code or from a worker thread (`await asyncio.to_thread(upgrade, url)`), never
# directly inside a running event loop on the same thread: asyncio.run would refuse.

from __future__ import annotations

import asyncio
from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy.engine import Connection, make_url

from storage.database.engine import create_engine, ensure_sqlite_directory, is_sqlite

MIGRATIONS_DIR = Path(__file__).resolve().with_name("migrations")
URL_ATTRIBUTE = "database_url"
"""Key of ``Config.attributes`` carrying the URL to ``migrations/env.py``."""


def upgrade(url: str, revision: str = "head") -> None:
    """Bring the database at ``url`` up to ``revision`` (creating a SQLite file if needed)."""
    ensure_sqlite_directory(url)
    command.upgrade(alembic_config(url), revision)


def downgrade(url: str, revision: str) -> None:
    """Take the database at ``url`` back to ``revision`` (``"base"``: no tables at all)."""
    command.downgrade(alembic_config(url), revision)


def current_revision(url: str) -> str | None:
    """The revision the database is at; None if it was never migrated (or does not exist)."""
    if _missing_sqlite_file(url):
        return None
    return asyncio.run(_read_revision(url))


def head_revision() -> str:
    """The newest revision this code ships."""
    head = ScriptDirectory.from_config(alembic_config()).get_current_head()
    if head is None:
        raise RuntimeError(f"no migrations found in {MIGRATIONS_DIR}")
    return head


def alembic_config(url: str | None = None) -> Config:
    """An Alembic config built in code: works from an installed package, no alembic.ini."""
    config = Config()
    # ConfigParser interpolates '%', which may appear in an install path.
    config.set_main_option("script_location", str(MIGRATIONS_DIR).replace("%", "%%"))
    config.set_main_option("path_separator", "os")
    if url is not None:
        config.attributes[URL_ATTRIBUTE] = url
    return config


async def _read_revision(url: str) -> str | None:
    engine = create_engine(url, migrating=True)
    try:
        async with engine.connect() as connection:
            return await connection.run_sync(_revision_of)
    finally:
        await engine.dispose()


def _revision_of(connection: Connection) -> str | None:
    return MigrationContext.configure(connection).get_current_revision()


def _missing_sqlite_file(url: str) -> bool:
    # Reading the revision must not create an empty database file as a side effect.
    parsed = make_url(url)
    if not is_sqlite(parsed) or parsed.query.get("uri"):
        return False
    database = parsed.database
    return bool(database) and database != ":memory:" and not Path(str(database)).exists()
