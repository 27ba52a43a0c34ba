"""The LanceDB store: one table per kind of content, scope columns, full-text and scalar indexes."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping
from datetime import timedelta
from enum import StrEnum
from typing import Any

import pyarrow as pa
from lancedb.index import FTS, Bitmap, BTree

from rag.store.connection import connect
from rag.store.rows import row_schema

logger = logging.getLogger(__name__)

# Compact when this many small fragments pile up (each small write adds one).
SMALL_FRAGMENT_LIMIT = 24
# Fold rows the indexes do not cover yet into them past this many (unindexed rows are scanned).
UNINDEXED_ROW_LIMIT = 20_000
# What LanceDB says when replicas opening an empty store together race to create its tables and
# indexes (another one committed first, or its table is not readable yet): try again on its work.
LOST_RACE = ("Retryable commit conflict", "Incompatible transaction", "was not found")
RACE_ATTEMPTS = 5
RACE_PAUSE_S = 0.2


class TableName(StrEnum):
    """Case evidence is high-volume and short-lived; knowledge is small and permanent."""

    EVIDENCE = "evidence"
    KNOWLEDGE = "knowledge"


def table_for(kb: str) -> TableName:
    """Case evidence lives apart from the knowledge bases."""
    return TableName.EVIDENCE if kb == "case" else TableName.KNOWLEDGE


class KnowledgeStore:
    """Async access to the LanceDB tables; vectors are computed by the caller and passed in."""

    def __init__(self, connection: Any, tables: dict[TableName, Any], dimension: int) -> None:
        self._connection = connection
        self._tables = tables
        self.dimension = dimension
        self._maintenance = asyncio.Lock()

    @classmethod
    async def open(
        cls, uri: str, dimension: int, storage_options: Mapping[str, str] | None = None
    ) -> KnowledgeStore:
        """Connect to `uri` (a directory or object-store URI), creating tables and indexes."""
        connection = await connect(uri, storage_options)
        tables = {name: await _open_or_create(connection, name, dimension) for name in TableName}
        return cls(connection, tables, dimension)

    def table(self, name: TableName) -> Any:
        """The LanceDB table behind `name` (for queries built by the retrieval layer)."""
        return self._tables[name]

    async def add(self, name: TableName, rows: pa.Table) -> None:
        """Append rows in one commit, so a document appears whole or not at all."""
        if rows.num_rows:
            await self._tables[name].add(rows)

    async def count(self, name: TableName, where: str) -> int:
        """How many rows match `where`."""
        return int(await self._tables[name].count_rows(where))

    async def delete(self, name: TableName, where: str) -> int:
        """Delete the rows matching `where`; return how many there were."""
        removed = await self.count(name, where)
        if removed:
            await self._tables[name].delete(where)
        return removed

    async def maintain(self, name: TableName, *, force: bool = False) -> bool:
        """Compact and fold new rows into the indexes when the table has fragmented."""
        async with self._maintenance:
            table = self._tables[name]
            if not force and not await _needs_optimize(table):
                return False
            await table.optimize(cleanup_older_than=timedelta(hours=1))
            logger.info("optimized table", extra={"table": name.value})
            return True


async def _open_or_create(connection: Any, name: TableName, dimension: int) -> Any:
    """The table, created with its indexes if it does not exist yet."""
    for attempt in range(1, RACE_ATTEMPTS + 1):
        try:
            if name.value in (await connection.list_tables()).tables:
                return await _upgrade(await connection.open_table(name.value), dimension)
            return await _create(connection, name, dimension)
        except (RuntimeError, ValueError) as error:
            if not _lost_race(error) or attempt == RACE_ATTEMPTS:
                raise
            await asyncio.sleep(RACE_PAUSE_S * attempt)
    raise AssertionError("unreachable")


async def _upgrade(table: Any, dimension: int) -> Any:
    """A table made by an earlier version gains the columns added since (all null in old rows)."""
    have = set((await table.schema()).names)
    missing = [field for field in row_schema(dimension) if field.name not in have]
    if missing:
        try:
            await table.add_columns(missing)
        except (RuntimeError, ValueError) as error:
            if not _lost_race(error) and "already exists" not in str(error):
                raise
            await table.checkout_latest()  # another replica added them first
        logger.info("added columns", extra={"columns": [field.name for field in missing]})
    return table


def _lost_race(error: Exception) -> bool:
    """Whether LanceDB refused because another opener of the store got there first."""
    return any(marker in str(error) for marker in LOST_RACE)


async def _create(connection: Any, name: TableName, dimension: int) -> Any:
    table = await connection.create_table(name.value, schema=row_schema(dimension), exist_ok=True)
    config = FTS(with_position=True, stem=False, remove_stop_words=False, ascii_folding=True)
    await _index(table, "text", config)
    await _index(table, "scope_id", BTree())
    await _index(table, "ingest_id", BTree())
    for column in ("team_id", "kb", "source"):
        await _index(table, column, Bitmap())
    return table


async def _index(table: Any, column: str, config: Any) -> None:
    """Create one index; replicas opening an empty store together may race to commit theirs."""
    for attempt in range(1, RACE_ATTEMPTS + 1):
        try:
            await table.create_index(column, config=config)
            return
        except RuntimeError as error:
            if not _lost_race(error) or attempt == RACE_ATTEMPTS:
                raise
            # Plan again on the version the other replica committed (this handle's is older).
            await table.checkout_latest()


async def _needs_optimize(table: Any) -> bool:
    stats = await table.stats()
    fragments = stats.get("fragment_stats", {})
    if int(fragments.get("num_small_fragments", 0)) > SMALL_FRAGMENT_LIMIT:
        return True
    for index in await table.list_indices():
        if index.index_type == "FTS":
            unindexed = await table.index_stats(index.name)
            if unindexed is not None and unindexed.num_unindexed_rows > UNINDEXED_ROW_LIMIT:
                return True
    return False
