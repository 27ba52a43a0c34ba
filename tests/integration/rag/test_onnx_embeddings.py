"""The embedding model's ONNX copy gives the vectors torch gives, and is made and used safely."""

from __future__ import annotations

import itertools
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from rag.embeddings.backend import export_model, load_encoder
from rag.embeddings.embedder import SentenceTransformerEmbedder
from rag.embeddings.model import resolve_model_path
from rag.embeddings.onnx_encoder import OnnxEncoder
from rag.embeddings.onnx_export import export_folder, read_export, recorded_export
from rag.embeddings.torch_encoder import TorchEncoder, torch_encoder
from tests.loghub import runbook_files, systems

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[3]
QUERIES = [
    "why does the payments API return 500",
    "PacketResponder terminating",
    "kernel: Out of memory: Killed process",
    "RAID array degraded disk failure",
    "connection refused 10.52.162.8:5432",
    "pod stuck in CrashLoopBackOff after deploy",
]


def realistic_texts() -> list[str]:
    """Log lines of every LogHub sample, runbook paragraphs and on-call questions."""
    lines = [
        line
        for system in systems()
        for line in itertools.islice(system.log_path.read_text().splitlines(), 25)
    ]
    paragraphs = [
        paragraph
        for path in runbook_files()[:10]
        for paragraph in path.read_text().split("\n\n")[:4]
        if paragraph.strip()
    ]
    return lines + paragraphs + QUERIES


@pytest.fixture(scope="module")
def copy_dir(
    tmp_path_factory: pytest.TempPathFactory, model_embedder: SentenceTransformerEmbedder
) -> Path:
    """Where the bundled model's ONNX copy was made, once for this module."""
    export_dir = tmp_path_factory.mktemp("models")
    made = export_model(resolve_model_path(None), export_dir)
    assert made is not None
    assert made.limits is not None, made.unsupported
    return export_dir


def test_onnx_and_torch_vectors_agree_on_log_lines_runbooks_and_queries(copy_dir: Path) -> None:
    path = resolve_model_path(None)
    texts = realistic_texts()
    onnx = load_encoder(path, copy_dir)
    assert isinstance(onnx, OnnxEncoder)

    similarity = np.sum(onnx.encode(texts) * torch_encoder(path).encode(texts), axis=1)

    assert len(texts) > 200
    assert similarity.min() > 0.999


def test_onnx_vectors_have_unit_length_and_the_model_dimension(copy_dir: Path) -> None:
    onnx = load_encoder(resolve_model_path(None), copy_dir)

    vectors = onnx.encode(["", "OOMKilled", "x " * 2000])

    assert vectors.shape == (3, onnx.dimension) == (3, 384)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)


LOAD_IN_A_FRESH_PROCESS = """
import sys
from pathlib import Path
from rag.embeddings.embedder import load_model
from rag.embeddings.model import resolve_model_path
encoder = load_model(resolve_model_path(None), Path(sys.argv[1]))
print(type(encoder).__name__, encoder.encode(["disk full"]).shape[1], "torch" in sys.modules)
"""


def test_a_process_finding_the_copy_runs_the_model_without_importing_torch(
    copy_dir: Path,
) -> None:
    shown = subprocess.run(
        [sys.executable, "-c", LOAD_IN_A_FRESH_PROCESS, str(copy_dir)],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
        cwd=ROOT,
    )

    assert shown.stdout.split() == ["OnnxEncoder", "384", "False"]


def test_making_the_copy_again_reuses_the_one_already_made(copy_dir: Path) -> None:
    path = resolve_model_path(None)
    before = recorded_export(path, copy_dir)
    assert before is not None

    again = export_model(path, copy_dir)

    assert again == before
    assert again.onnx_file.stat().st_mtime_ns == before.onnx_file.stat().st_mtime_ns


def test_a_damaged_copy_falls_back_to_torch_and_is_made_again(
    copy_dir: Path, tmp_path: Path
) -> None:
    path = resolve_model_path(None)
    made = recorded_export(path, copy_dir)
    assert made is not None
    damaged = tmp_path / "models"
    shutil.copytree(copy_dir, damaged)
    folder = damaged / made.folder.name
    (folder / "model.onnx").write_bytes(b"not a model")

    encoder = load_encoder(path, damaged)

    assert isinstance(encoder, TorchEncoder)
    assert read_export(folder) is None
    remade = export_model(path, damaged)
    assert remade is not None
    assert isinstance(load_encoder(path, damaged), OnnxEncoder)


def test_without_a_copy_folder_the_model_runs_on_torch(model_embedder: object) -> None:
    assert isinstance(load_encoder(resolve_model_path(None), None), TorchEncoder)


def test_a_copy_folder_that_cannot_be_written_leaves_the_model_on_torch(
    tmp_path: Path, model_embedder: object, caplog: pytest.LogCaptureFixture
) -> None:
    blocked = tmp_path / "models"
    blocked.write_text("a file where the folder should be")

    assert export_model(resolve_model_path(None), blocked) is None
    assert isinstance(load_encoder(resolve_model_path(None), blocked), TorchEncoder)
    assert "cannot save the ONNX copy" in caplog.text


def test_a_changed_model_does_not_use_the_copy_of_the_old_one(
    copy_dir: Path, tmp_path: Path
) -> None:
    bundled = resolve_model_path(None)
    changed = tmp_path / "model"
    shutil.copytree(bundled, changed, ignore=shutil.ignore_patterns("model.safetensors"))
    (changed / "model.safetensors").symlink_to(bundled / "model.safetensors")
    config = changed / "sentence_bert_config.json"
    config.write_text(config.read_text().replace("256", "128"))

    assert recorded_export(bundled, copy_dir) is not None
    assert recorded_export(changed, copy_dir) is None
    assert export_folder(changed, copy_dir) != export_folder(bundled, copy_dir)
