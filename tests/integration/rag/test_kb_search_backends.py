"""`fm kb search` gives the same answers from the model's ONNX copy as from torch (the fallback)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bot.cli.kb import kb_ingest, kb_search
from bot.settings import Settings, load_settings
from rag.embeddings.backend import export_model
from rag.embeddings.embedder import SentenceTransformerEmbedder
from rag.embeddings.model import resolve_model_path
from rag.embeddings.onnx_export import recorded_export
from tests.loghub import RUNBOOKS, LogSystem

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[3]
QUERIES = ("node filesystem almost out of space", "PacketResponder terminating")
SEARCH_IN_A_FRESH_PROCESS = """
import sys
from bot.cli import main
code = main(["kb", "search", sys.argv[1], "--json"])
print("torch" in sys.modules, code, file=sys.stderr)
"""


@pytest.fixture(scope="module")
def knowledge(
    tmp_path_factory: pytest.TempPathFactory, model_embedder: SentenceTransformerEmbedder
) -> Path:
    """A data directory with runbooks and a log ingested, and the model's ONNX copy in it."""
    data_dir = tmp_path_factory.mktemp("data")
    export_model(resolve_model_path(None), data_dir / "models")
    sources = [RUNBOOKS / "prometheus-operator" / "node", LogSystem("HDFS").log_path]
    assert kb_ingest(settings_for(data_dir), [str(path) for path in sources], "global") == 0
    return data_dir


def settings_for(data_dir: Path, **env: str) -> Settings:
    return load_settings({"FM_DATA_DIR": str(data_dir), **env}, env_file=None)


def hits(capsys: pytest.CaptureFixture[str]) -> list[dict[str, object]]:
    return [json.loads(line) for line in capsys.readouterr().out.splitlines()]


def test_search_runs_on_the_onnx_copy_in_a_fresh_process_without_importing_torch(
    knowledge: Path,
) -> None:
    env = {name: value for name, value in os.environ.items() if not name.startswith("FM_")}
    done = subprocess.run(
        [sys.executable, "-c", SEARCH_IN_A_FRESH_PROCESS, QUERIES[0]],
        env={**env, "FM_DATA_DIR": str(knowledge), "FM_LOG_LEVEL": "WARNING"},
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
        cwd=ROOT,
    )

    found = [json.loads(line) for line in done.stdout.splitlines()]
    assert str(found[0]["source"]).startswith("node/NodeFilesystem")
    assert done.stderr.split()[-2:] == ["False", "0"]


def test_search_without_a_copy_falls_back_to_torch_and_finds_the_same_hits(
    knowledge: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The same knowledge base, from a data directory where no copy can be saved.
    (tmp_path / "models").write_text("a file where the copy's folder would go")
    on_torch = settings_for(tmp_path, FM_LANCEDB_URI=str(knowledge / "lancedb"))
    on_onnx = settings_for(knowledge)

    for query in QUERIES:
        assert kb_search(on_onnx, query, "global", True) == 0
        from_copy = hits(capsys)
        assert kb_search(on_torch, query, "global", True) == 0
        from_torch = hits(capsys)

        assert from_copy
        assert [hit["text"] for hit in from_torch] == [hit["text"] for hit in from_copy]
        for mine, theirs in zip(from_copy, from_torch, strict=True):
            assert mine["score"] == pytest.approx(theirs["score"], abs=1e-3)


def test_the_first_search_without_a_copy_makes_it_and_says_so(
    knowledge: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    settings = settings_for(tmp_path, FM_LANCEDB_URI=str(knowledge / "lancedb"))

    assert kb_search(settings, QUERIES[0], "global", True) == 0

    assert "saving an ONNX copy of the embedding model" in capsys.readouterr().err
    assert recorded_export(resolve_model_path(None), tmp_path / "models") is not None


def test_the_fm_program_prints_every_hit_and_exits_0(knowledge: Path) -> None:
    env = {name: value for name, value in os.environ.items() if not name.startswith("FM_")}
    done = subprocess.run(
        [str(Path(sys.executable).with_name("fm")), "kb", "search", QUERIES[1], "--json"],
        env={**env, "FM_DATA_DIR": str(knowledge), "FM_LOG_LEVEL": "WARNING"},
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )

    assert done.returncode == 0
    assert len([json.loads(line) for line in done.stdout.splitlines()]) == 10
