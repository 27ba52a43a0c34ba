"""One ONNX copy of the embedding model for a whole benchmark run, instead of one per benchmark.

Making the copy takes ~15 s (torch loads, then exports). `python -m tests.benchmarks` makes it
once, in a child process, and names its folder in BENCH_MODEL_COPY; each benchmark that would
have made its own (the first `fm kb ingest` into a new data directory) puts it in place first,
as a restarted bot finds it. The start-up benchmark's "new replica" still makes its own: that
is what it measures.

    python -m tests.benchmarks.model_copy FOLDER
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

SHARED = "BENCH_MODEL_COPY"


def seed_model_copy(data_dir: Path) -> None:
    """Put this run's ONNX copy where the bot keeps it (FM_DATA_DIR/models), if there is one."""
    shared = os.environ.get(SHARED)
    if shared:
        shutil.copytree(shared, data_dir / "models", dirs_exist_ok=True)


def main() -> None:
    """Make the copy in the folder given."""
    from rag.embeddings.backend import export_model
    from rag.embeddings.model import resolve_model_path

    made = export_model(resolve_model_path(None), Path(sys.argv[1]))
    if made is None or made.unsupported:
        sys.exit("the ONNX copy of the embedding model could not be made")


if __name__ == "__main__":
    main()
