"""Snapshot checks for renderers: the JSON Slack would receive, kept under snapshots/.

Run with UPDATE_SNAPSHOTS=1 to write a missing or changed snapshot (then review the diff).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

DIRECTORY = Path(__file__).with_name("snapshots")


def assert_snapshot(name: str, data: Any) -> None:
    """Compare ``data`` with the stored snapshot ``name``."""
    path = DIRECTORY / f"{name}.json"
    rendered = json.dumps(data, indent=2, ensure_ascii=False, sort_keys=True) + "\n"
    if os.environ.get("UPDATE_SNAPSHOTS") == "1" or not path.exists():
        DIRECTORY.mkdir(exist_ok=True)
        path.write_text(rendered, encoding="utf-8")
    assert path.read_text(encoding="utf-8") == rendered, f"snapshot {name} changed"
