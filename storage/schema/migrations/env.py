"""Alembic environment: runs migrations on an async engine for the URL ``storage.schema.migrate`` passes."""

from __future__ import annotations

import asyncio

from alembic import context
from sqlalchemy import text
from sqlalchemy.engine import Connection

from storage.database.engine import DURABLE, WRITE_INTENT, create_engine
from storage.schema.migrate import URL_ATTRIBUTE
from storage.schema.tables import Base

# Any fixed number: PostgreSQL advisory locks are named by a 64-bit key ("FMMIGR").
MIGRATION_LOCK = 0x464D4D494752


def database_url() -> str:
    """The URL the caller put on the Alembic config (never read from the environment)."""
    url = context.config.attributes.get(URL_ATTRIBUTE)
    if not isinstance(url, str) or not url:
        raise RuntimeError(
            f"no database URL: run migrations through storage.schema.migrate, which sets "
            f"config.attributes[{URL_ATTRIBUTE!r}]"
        )
    return url


def run_migrations_offline() -> None:
    """Emit the SQL script instead of running it (``--sql``)."""
    context.configure(
        url=database_url(),
        target_metadata=Base.metadata,
        literal_binds=True,
        dialect_opts={"paramstyle": "named"},
    )
    with context.begin_transaction():
        context.run_migrations()


def do_run_migrations(connection: Connection) -> None:
    """Run the migrations on a synchronous facade of the async connection."""
    sqlite = connection.dialect.name == "sqlite"
    context.configure(
        connection=connection,
        target_metadata=Base.metadata,
        # SQLite alters tables by rebuilding them; autogenerate should say so.
        render_as_batch=sqlite,
        # SQLite's DDL is transactional, though Alembic assumes not and commits after each
        # migration: a replica starting alongside could then slip in between two of them and run
        # the next one twice. One transaction, begun IMMEDIATE, reads the version under the lock.
        transactional_ddl=True if sqlite else None,
    )
    with context.begin_transaction():
        if connection.dialect.name == "postgresql":
            # Replicas starting together migrate one at a time; the next ones find it done.
            # (SQLite's BEGIN IMMEDIATE serialises them.) Released at commit.
            connection.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": MIGRATION_LOCK})
        context.run_migrations()


async def run_async_migrations() -> None:
    """Connect with the async driver (aiosqlite or asyncpg) and migrate."""
    engine = create_engine(database_url(), migrating=True)
    try:
        async with engine.connect() as connection:
            # SQLite: take the write lock at BEGIN, waiting (loop free) for any other writer.
            writer = await connection.execution_options(**{WRITE_INTENT: True, DURABLE: True})
            await writer.run_sync(do_run_migrations)
    finally:
        await engine.dispose()


if context.is_offline_mode():
    run_migrations_offline()
else:
    # storage.schema.migrate is synchronous and documented never to run inside an event loop.
    asyncio.run(run_async_migrations())
