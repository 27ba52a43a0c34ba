"""Replicas starting together on one empty LanceDB store: each opens it, none fails to start."""

from __future__ import annotations

import asyncio
from pathlib import Path

from rag.store.tables import KnowledgeStore, TableName

REPLICAS = 4
ROUNDS = 5
"""Without care nearly every round lost a race (a conflicting commit, a table not readable yet)."""
INDEXED = {"text", "scope_id", "ingest_id", "team_id", "kb", "source"}


async def test_replicas_opening_an_empty_store_at_once_all_open_it_with_every_index(
    tmp_path: Path,
) -> None:
    for round_ in range(ROUNDS):
        uri = str(tmp_path / f"lancedb-{round_}")

        opened = await asyncio.gather(
            *(KnowledgeStore.open(uri, 8) for _ in range(REPLICAS)), return_exceptions=True
        )

        assert [type(store) for store in opened] == [KnowledgeStore] * REPLICAS, opened
        later = await KnowledgeStore.open(uri, 8)
        for name in TableName:
            indices = await later.table(name).list_indices()
            assert {column for index in indices for column in index.columns} == INDEXED
