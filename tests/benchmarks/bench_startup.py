"""Cold start of the command line: `fm --help`, `fm doctor` and `fm kb search`, each a new process.

A small knowledge base (node runbooks and one LogHub log) is built in a temporary data directory
with `fm kb ingest`, which also makes the embedding model's ONNX copy, as it does for a user.
Each command then runs RUNS times as a fresh process; medians of wall time and of processor time
(user + system, which neighbours on a shared machine inflate less) are printed. The last line
is `fm kb search` without the copy (torch), as every search ran before it existed.
``--smoke`` runs each command once (that it runs, not how fast).
"""

from __future__ import annotations

import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tests.benchmarks.model_copy import seed_model_copy
from tests.loghub import RUNBOOKS, LogSystem

RUNS = 7
TORCH_RUNS = 3
TARGET_S = 2.0
QUERY = "node filesystem almost out of space"
FM = str(Path(sys.executable).with_name("fm"))
ROOT = Path(__file__).resolve().parents[2]


def environment(data_dir: Path, **extra: str) -> dict[str, str]:
    """The process environment with only this benchmark's FM_* settings."""
    kept = {name: value for name, value in os.environ.items() if not name.startswith("FM_")}
    return {**kept, "FM_DATA_DIR": str(data_dir), "FM_LOG_LEVEL": "WARNING", **extra}


def fm(env: dict[str, str], *args: str) -> tuple[float, float, str]:
    """Run `fm ARGS` once: wall seconds, processor seconds, what it printed."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(
        [FM, *args], env=env, cwd=ROOT, capture_output=True, text=True, check=True
    )
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, done.stdout


def build(data_dir: Path) -> dict[str, str]:
    """Migrate the database and ingest the knowledge base; the environment that points at it."""
    env = environment(data_dir)
    seed_model_copy(data_dir)
    fm(env, "db", "upgrade")
    sources = [RUNBOOKS / "prometheus-operator" / "node", LogSystem("HDFS").log_path]
    fm(env, "kb", "ingest", *map(str, sources))
    return env


def measure(name: str, env: dict[str, str], args: list[str], runs: int) -> None:
    """Time `fm ARGS` `runs` times after one untimed run; print its medians."""
    _, _, printed = fm(env, *args)
    assert printed.strip(), f"{name} printed nothing"
    times = [fm(env, *args)[:2] for _ in range(runs)]
    wall = statistics.median(wall for wall, _ in times)
    cpu = statistics.median(cpu for _, cpu in times)
    verdict = "meets" if wall < TARGET_S else "misses"
    print(
        f"  {name:<28} wall p50 {wall:5.2f} s  (min {min(w for w, _ in times):5.2f})"
        f"  cpu p50 {cpu:5.2f} s  {verdict} < {TARGET_S:.0f} s"
    )


def main() -> None:
    """Build the knowledge base, then time each command."""
    runs, torch_runs = (1, 1) if sys.argv[1:] == ["--smoke"] else (RUNS, TORCH_RUNS)
    with tempfile.TemporaryDirectory(prefix="fm-bench-start-") as folder:
        data_dir = Path(folder) / "data"
        env = build(data_dir)
        # Same knowledge base, but no copy can be saved where it would go: torch every time.
        torch_dir = Path(folder) / "torch"
        torch_dir.mkdir()
        (torch_dir / "models").write_text("not a folder: the ONNX copy cannot be saved here")
        torch_env = environment(torch_dir, FM_LANCEDB_URI=str(data_dir / "lancedb"))
        # Wall time on a busy machine is processor time plus waiting for a core: say how busy.
        load = os.getloadavg()[0]
        print(f"Cold start of fm, {runs} fresh processes each (medians; load {load:.1f}):")
        measure("fm --help", env, ["--help"], runs)
        measure("fm doctor", env, ["doctor"], runs)
        measure("fm kb search (ONNX copy)", env, ["kb", "search", QUERY], runs)
        measure("fm kb search (torch, no copy)", torch_env, ["kb", "search", QUERY], torch_runs)


if __name__ == "__main__":
    main()
