"""Opening LanceDB: object-store options, and a handle that sees other processes' writes."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import timedelta
from typing import Any

import lancedb

# A long-lived handle never sees another process's writes without an interval (STACK-NOTES);
# replicas sharing one store must see each other's uploads and deletions within seconds.
READ_CONSISTENCY = timedelta(seconds=2)


async def connect(uri: str, storage_options: Mapping[str, str] | None = None) -> Any:
    """An async connection to `uri` (a directory or object-store URI) with its storage options."""
    return await lancedb.connect_async(
        uri,
        read_consistency_interval=READ_CONSISTENCY,
        storage_options=dict(storage_options) if storage_options else None,
    )
