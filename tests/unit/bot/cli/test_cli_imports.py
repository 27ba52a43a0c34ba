"""What `fm` imports before it does anything: start-up a person does not wait on.

Each command runs in a fresh interpreter (this one has imported everything by now) and reports
which of the heavy libraries it loaded.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.paths import REPO_ROOT

ROOT = REPO_ROOT
HEAVY = (
    "torch",
    "sentence_transformers",
    "transformers",
    "onnxruntime",
    "litellm",
    "lancedb",
    "pyarrow",
    "numpy",
    "slack_bolt",
    "slack_sdk",
    "aiohttp",
    "sqlalchemy",
    "alembic",
)
RUN_FM = """
import json, sys
from bot.cli import main
try:
    main(sys.argv[2:])
except SystemExit:
    pass
heavy = [name for name in json.loads(sys.argv[1]) if name in sys.modules]
print(json.dumps(heavy), file=sys.stderr)
"""


def heavy_modules_loaded_by(*args: str, data_dir: Path) -> list[str]:
    """Run `fm ARGS` in a fresh interpreter; the heavy modules it had imported when it ended."""
    env = {name: value for name, value in os.environ.items() if not name.startswith("FM_")}
    done = subprocess.run(
        [sys.executable, "-c", RUN_FM, json.dumps(HEAVY), *args],
        env={**env, "FM_DATA_DIR": str(data_dir)},
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
        cwd=ROOT,
    )
    loaded: list[str] = json.loads(done.stderr.strip().splitlines()[-1])
    return loaded


@pytest.mark.parametrize("args", [["--help"], ["kb", "search", "--help"], ["doctor", "--help"]])
def test_help_imports_none_of_the_heavy_libraries(args: list[str], tmp_path: Path) -> None:
    assert heavy_modules_loaded_by(*args, data_dir=tmp_path) == []


def test_the_doctor_loads_no_model_no_llm_library_no_slack_and_not_lancedb(
    tmp_path: Path,
) -> None:
    (tmp_path / "lancedb" / "knowledge.lance").mkdir(parents=True)

    loaded = heavy_modules_loaded_by("doctor", data_dir=tmp_path)

    # The database check needs SQLAlchemy; nothing else heavy is worth a cold start.
    assert set(loaded) <= {"sqlalchemy", "alembic"}


LANCEDB_WITHOUT_REST_CLIENT = """
import sys
from rag.store.lance_import import defer_rest_client
defer_rest_client()
import lancedb
api = "lance_namespace_urllib3_client.api.table_api"
print(api in sys.modules)
import lance_namespace_urllib3_client as client
print(client.ApiClient.__name__, api in sys.modules)
"""


def test_lancedb_is_imported_without_its_rest_api_which_still_loads_when_asked_for() -> None:
    shown = subprocess.run(
        [sys.executable, "-c", LANCEDB_WITHOUT_REST_CLIENT],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
        cwd=ROOT,
    )

    assert shown.stdout.split() == ["False", "ApiClient", "True"]


def test_the_fm_program_ends_a_failed_doctor_with_exit_code_1_and_its_whole_report(
    tmp_path: Path,
) -> None:
    env = {name: value for name, value in os.environ.items() if not name.startswith("FM_")}
    missing = {"FM_DATA_DIR": str(tmp_path), "FM_EMBEDDING_MODEL": str(tmp_path / "nothing")}

    done = subprocess.run(
        [str(Path(sys.executable).with_name("fm")), "doctor"],
        env={**env, **missing},
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )

    assert done.returncode == 1
    assert done.stdout.splitlines()[-1].startswith("1 check(s) failed")
