"""The knowledge base the bot benchmarks search: the public runbooks in `tests/data/runbooks/`."""

from __future__ import annotations

from pathlib import Path

from tests.paths import RUNBOOKS


def runbooks() -> tuple[list[Path], list[Path]]:
    """The runbooks split as an installation might have them: (one person's, the workspace's).

    Every fourth file is the person's own; the rest are the workspace's.
    """
    files = sorted(RUNBOOKS.rglob("*.md"))
    personal = files[::4]
    return personal, [path for path in files if path not in personal]
