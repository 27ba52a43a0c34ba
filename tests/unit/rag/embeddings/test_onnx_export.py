"""Which models get an ONNX copy, how a copy is recorded, and pooling as torch's model does."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from rag.embeddings.model import resolve_model_path
from rag.embeddings.onnx_encoder import mean_pool
from rag.embeddings.onnx_export import (
    MANIFEST,
    Export,
    TextLimits,
    read_export,
    record,
    unsupported_reason,
)


@pytest.fixture
def model_dir(tmp_path: Path) -> Path:
    """The bundled model's small files (no weights), to be changed by each test."""
    target = tmp_path / "model"
    shutil.copytree(
        resolve_model_path(None), target, ignore=shutil.ignore_patterns("*.safetensors")
    )
    return target


def test_the_bundled_model_can_have_a_copy() -> None:
    assert unsupported_reason(resolve_model_path(None)) is None


def test_a_model_pooled_on_its_cls_token_stays_on_torch(model_dir: Path) -> None:
    pooling = model_dir / "1_Pooling" / "config.json"
    config = json.loads(pooling.read_text())
    config |= {"pooling_mode_cls_token": True, "pooling_mode_mean_tokens": False}
    pooling.write_text(json.dumps(config))

    assert unsupported_reason(model_dir) == "its pooling is not the mean of the token vectors"


def test_a_model_with_a_dense_layer_stays_on_torch(model_dir: Path) -> None:
    modules = json.loads((model_dir / "modules.json").read_text())
    modules.insert(2, {"idx": 2, "name": "2", "path": "2_Dense", "type": "models.Dense"})
    (model_dir / "modules.json").write_text(json.dumps(modules))

    reason = unsupported_reason(model_dir)

    assert reason is not None
    assert "Dense" in reason


def test_a_model_without_tokenizer_json_stays_on_torch(model_dir: Path) -> None:
    (model_dir / "tokenizer.json").unlink()

    assert unsupported_reason(model_dir) == "it has no tokenizer.json"


def test_a_recorded_copy_reads_back_with_its_text_limits(tmp_path: Path) -> None:
    made = record(Export(tmp_path, limits=TextLimits(256, lowercase=True)), tmp_path)

    assert read_export(tmp_path) == made


def test_a_folder_without_a_manifest_has_no_copy_yet(tmp_path: Path) -> None:
    (tmp_path / "model.onnx").write_bytes(b"half written")

    assert read_export(tmp_path) is None


def test_a_manifest_of_another_format_is_made_again(tmp_path: Path) -> None:
    (tmp_path / MANIFEST).write_text(json.dumps({"format": 0, "max_seq_length": 256}))

    assert read_export(tmp_path) is None


def test_mean_pooling_ignores_padding_and_gives_unit_vectors() -> None:
    hidden = np.array([[[1.0, 0.0], [3.0, 0.0], [100.0, 100.0]]], dtype=np.float32)
    mask = np.array([[1, 1, 0]], dtype=np.int64)

    pooled = mean_pool(hidden, mask)

    assert pooled.tolist() == [[1.0, 0.0]]
