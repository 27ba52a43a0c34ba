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

from rag.connection import connect
from rag.rows import row_schema

logger = logging.getLogger(__name__)

# Compact when this many small fragments pile up (each small write adds one).
SMALL_FRAGMENT_LIMIT = 24
# Fold rows the indexes do not cover yet into them past this many (unindexed rows are scanned).
UNINDEXED_ROW_LIMIT = 20_000


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
        existing = set((await connection.list_tables()).tables)
        tables = {}
        for name in TableName:
            if name.value in existing:
                tables[name] = await connection.open_table(name.value)
            else:
                tables[name] = await _create(connection, name, dimension)
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


async def _create(connection: Any, name: TableName, dimension: int) -> Any:
    table = await connection.create_table(name.value, schema=row_schema(dimension), exist_ok=True)
    config = FTS(with_position=True, stem=False, remove_stop_words=False, ascii_folding=True)
    await table.create_index("text", config=config)
    await table.create_index("scope_id", config=BTree())
    await table.create_index("ingest_id", config=BTree())
    for column in ("team_id", "kb", "source"):
        await table.create_index(column, config=Bitmap())
    return table


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
