"""Replicas starting together on one empty database: each migrates it or finds it migrated."""

from __future__ import annotations

import asyncio
import sys

from storage.schema.migrate import current_revision, head_revision

REPLICAS = 3
MIGRATE = "import sys; from storage.schema.migrate import upgrade; upgrade(sys.argv[1])"


async def _migrate_in_a_process(url: str) -> tuple[int, str]:
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-c",
        MIGRATE,
        url,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.PIPE,
    )
    _, errors = await process.communicate()
    return await process.wait(), errors.decode(errors="replace")


async def test_replicas_migrating_one_empty_database_at_once_all_start(database_url: str) -> None:
    outcomes = await asyncio.gather(*(_migrate_in_a_process(database_url) for _ in range(REPLICAS)))

    assert [code for code, _ in outcomes] == [0] * REPLICAS, [e[-600:] for _, e in outcomes]
    assert await asyncio.to_thread(current_revision, database_url) == head_revision()
