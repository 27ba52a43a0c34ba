"""The doctor's contact points with the outside world, each replaceable in tests."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from bot.cli.doctor_models import ProbeModels
    from bot.cli.mcp import InspectServers


class Migrations(Protocol):
    """The part of `storage.schema.migrate` the doctor reads."""

    def current_revision(self, url: str) -> str | None: ...

    def head_revision(self) -> str: ...


def load_migrations() -> Migrations:
    """Import the real migration module only when the database check needs it."""
    import storage.schema.migrate as migrate

    return migrate


def select_one(url: str) -> None:
    """Connect with the async engine and run SELECT 1; raise whatever the driver raises."""
    # The doctor runs from the synchronous CLI, so it owns the event loop here.
    asyncio.run(_select_one(url))


async def _select_one(url: str) -> None:
    from sqlalchemy import text
    from sqlalchemy.ext.asyncio import create_async_engine

    engine = create_async_engine(url)
    try:
        async with engine.connect() as connection:
            await connection.execute(text("SELECT 1"))
    except Exception:
        await _join_aiosqlite_workers()
        raise
    finally:
        await engine.dispose()


async def _join_aiosqlite_workers() -> None:
    # aiosqlite 0.22 stops its worker thread after a failed connect without waiting for it; if
    # the loop closes first the thread dies with "Event loop is closed" (omnilib/aiosqlite#389).
    for thread in threading.enumerate():
        if thread.name.endswith("(_connection_worker_thread)"):
            await asyncio.to_thread(thread.join, 1.0)


# The doctor reports an unreachable object store in seconds instead of retrying for minutes.
QUICK_FAILURE = {"connect_timeout": "5s", "client_max_retries": "1", "client_retry_timeout": "15"}


def list_lancedb_tables(uri: str, storage_options: Mapping[str, str]) -> list[str]:
    """Open LanceDB at `uri` with its storage options and list its tables."""
    if "://" not in uri:
        # A local database's tables are its `<name>.lance` folders, which is all LanceDB lists
        # there; reading them directly spares `fm doctor` importing LanceDB (~1 s).
        return [
            path.name.removesuffix(".lance")
            for path in Path(uri).iterdir()
            if path.is_dir() and path.suffix == ".lance"
        ]
    import lancedb

    options = {**storage_options, **QUICK_FAILURE} if storage_options else None
    return list(lancedb.connect(uri, storage_options=options).list_tables().tables)


def embedding_dimension(path: Path) -> int:
    """Load the model with sentence-transformers and embed one sentence (slow: ~10 s)."""
    from sentence_transformers import SentenceTransformer

    model = SentenceTransformer(str(path), device="cpu")
    return int(model.encode(["doctor check"]).shape[1])


@dataclass(frozen=True)
class Probes:
    """Everything the doctor touches outside this process; tests pass fakes."""

    select_one: Callable[[str], None] = select_one
    migrations: Callable[[], Migrations] = load_migrations
    lancedb_tables: Callable[[str, Mapping[str, str]], list[str]] = list_lancedb_tables
    embedding_dimension: Callable[[Path], int] = embedding_dimension
    llm_models: ProbeModels | None = None
    """How `--deep` asks each model (None: the real gateway, one tiny call each)."""
    mcp_servers: InspectServers | None = None
    """How the MCP servers are started and listed (None: for real, from FM_MCP_CONFIG)."""
