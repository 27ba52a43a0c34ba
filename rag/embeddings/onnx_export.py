"""The ONNX copy of the embedding model: where it is kept, whether it is ready, how it is made.

The copy is made from the model's own weights (torch.onnx.export, nothing downloaded) into a
folder named after a fingerprint of the model, and is used only after its vectors were checked
against the torch model's on realistic texts: stored vectors and new query vectors must agree.
"""

from __future__ import annotations

import hashlib
import inspect
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rag.embeddings.onnx_encoder import OnnxEncoder

EXPORT_FORMAT = 1
MANIFEST = "export.json"
MODEL_FILE = "model.onnx"
TOKENIZER_FILE = "tokenizer.json"
OPSET = 17
MIN_SIMILARITY = 0.9999
# The small files that define the model are hashed whole; the weights by size and time, since
# reading 90 MB to fingerprint them would cost more than the search the copy speeds up.
DEFINING_FILES = (
    "config.json",
    "modules.json",
    "sentence_bert_config.json",
    TOKENIZER_FILE,
    "1_Pooling/config.json",
)
WEIGHT_FILES = ("model.safetensors", "pytorch_model.bin")
# What the bot embeds: log lines (long ones cut at the model's limit), queries, runbook text.
PROBES = (
    "connection refused on port 5432",
    "2024-03-01T14:32:15Z ERROR [payments-api] upstream connect error or disconnect/reset"
    " before headers. reset reason: connection failure",
    "081109 203615 148 INFO dfs.DataNode$PacketResponder: PacketResponder 1 for block"
    " blk_38865049064139660 terminating",
    "pod payments-7d9f crash looping after deploy",
    "OOMKilled",
    "",
    "Disk usage on /var/lib/docker is 97% " * 40,
)
_MODULES = {"Transformer", "Pooling", "Normalize"}
MODEL_INPUTS = ("input_ids", "attention_mask", "token_type_ids")


@dataclass(frozen=True)
class TextLimits:
    """How sentence-transformers prepares text for the model: the copy must do the same."""

    max_seq_length: int
    lowercase: bool


@dataclass(frozen=True)
class Export:
    """A copy's folder; `limits` when it is ready, `unsupported` when the model cannot have one."""

    folder: Path
    limits: TextLimits | None = None
    unsupported: str | None = None

    @property
    def onnx_file(self) -> Path:
        """The exported transformer."""
        return self.folder / MODEL_FILE


def export_folder(model_path: Path, export_dir: Path) -> Path:
    """Where the copy of the model at `model_path` is kept (a changed model gets a new folder)."""
    digest = hashlib.sha256(f"{EXPORT_FORMAT}\0{model_path.resolve()}".encode())
    for name in DEFINING_FILES:
        file = model_path / name
        digest.update(file.read_bytes() if file.is_file() else b"-")
    for name in WEIGHT_FILES:
        file = model_path / name
        if file.is_file():
            stat = file.stat()
            digest.update(f"{name}\0{stat.st_size}\0{stat.st_mtime_ns}".encode())
    return export_dir / f"{model_path.name}-{digest.hexdigest()[:16]}"


def read_export(folder: Path) -> Export | None:
    """The copy recorded in `folder`, or None when none was made (or it was left half-made)."""
    try:
        manifest = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(manifest, dict) or manifest.get("format") != EXPORT_FORMAT:
        return None
    if manifest.get("unsupported"):
        return Export(folder, unsupported=str(manifest["unsupported"]))
    limits = TextLimits(int(manifest["max_seq_length"]), bool(manifest["lowercase"]))
    return Export(folder, limits=limits)


def recorded_export(model_path: Path, export_dir: Path | None) -> Export | None:
    """The copy made for this model (ready, or recorded as impossible); None when none was made."""
    if export_dir is None:
        return None
    try:
        return read_export(export_folder(model_path, export_dir))
    except OSError:  # an unreadable model file: loading it will say what is wrong
        return None


def forget_export(folder: Path) -> None:
    """Drop the record of a copy that would not load, so the next load makes it again."""
    (folder / MANIFEST).unlink(missing_ok=True)


def unsupported_reason(model_path: Path) -> str | None:
    """Why the model cannot be run from ONNX here (it must be transformer + mean pooling)."""
    try:
        modules = json.loads((model_path / "modules.json").read_text(encoding="utf-8"))
        pooling = json.loads((model_path / "1_Pooling" / "config.json").read_text("utf-8"))
    except (OSError, ValueError):
        return "it has no modules.json or pooling configuration"
    kinds = [str(module.get("type", "")).rsplit(".", 1)[-1] for module in modules]
    if not set(kinds) <= _MODULES or kinds[:2] != ["Transformer", "Pooling"]:
        return f"its modules are {', '.join(kinds)}, not a transformer with mean pooling"
    if not _mean_pooling(pooling):
        return "its pooling is not the mean of the token vectors"
    if not (model_path / TOKENIZER_FILE).is_file():
        return f"it has no {TOKENIZER_FILE}"
    return None


def make_export(model: Any, model_path: Path, folder: Path) -> Export:
    """Export the loaded sentence-transformers `model`, check it, and record the result."""
    folder.mkdir(parents=True, exist_ok=True)
    reason = unsupported_reason(model_path)
    if reason is not None:
        return record(Export(folder, unsupported=reason), model_path)
    limits = TextLimits(int(model.max_seq_length), _lowercase(model_path))
    partial = folder / f".{MODEL_FILE}.{os.getpid()}.tmp"
    try:
        _trace(model, partial)
        os.replace(partial, folder / MODEL_FILE)
    finally:
        partial.unlink(missing_ok=True)
    # Imported here: reading a manifest (`fm doctor`) should not cost numpy and onnxruntime.
    from rag.embeddings.onnx_encoder import OnnxEncoder

    copy = OnnxEncoder.open(folder / MODEL_FILE, model_path / TOKENIZER_FILE, limits)
    similarity = agreement(model, copy)
    if similarity < MIN_SIMILARITY:
        (folder / MODEL_FILE).unlink(missing_ok=True)
        reason = f"its ONNX copy's vectors differ from torch's (cosine {similarity:.6f})"
        return record(Export(folder, unsupported=reason), model_path)
    return record(Export(folder, limits=limits), model_path)


def agreement(model: Any, copy: OnnxEncoder) -> float:
    """The lowest cosine similarity between torch's and the copy's vectors of the probe texts."""
    import numpy as np

    expected = model.encode(
        list(PROBES), normalize_embeddings=True, convert_to_numpy=True, show_progress_bar=False
    )
    return float(np.min(np.sum(np.asarray(expected) * copy.encode(PROBES), axis=1)))


def _mean_pooling(config: dict[str, Any]) -> bool:
    if "pooling_mode" in config:
        return bool(config["pooling_mode"] == "mean")
    modes = {key for key, value in config.items() if key.startswith("pooling_mode_") and value}
    return modes == {"pooling_mode_mean_tokens"}


def _lowercase(model_path: Path) -> bool:
    try:
        config = json.loads((model_path / "sentence_bert_config.json").read_text("utf-8"))
    except (OSError, ValueError):
        return False
    return bool(config.get("do_lower_case", False))


def record(export: Export, model_path: Path) -> Export:
    """Write the manifest of `export` (a ready copy, or why there is none)."""
    manifest: dict[str, object] = {"format": EXPORT_FORMAT, "model": str(model_path)}
    if export.limits is not None:
        manifest |= {
            "max_seq_length": export.limits.max_seq_length,
            "lowercase": export.limits.lowercase,
        }
    manifest["unsupported"] = export.unsupported
    partial = export.folder / f".{MANIFEST}.{os.getpid()}.tmp"
    partial.write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    # The manifest appears last and whole: its presence means the copy is complete.
    os.replace(partial, export.folder / MANIFEST)
    return export


def _trace(model: Any, target: Path) -> None:
    """torch.onnx.export of the transformer (token vectors out; pooling stays in numpy)."""
    import warnings

    import torch

    transformer = model[0].auto_model
    accepted = inspect.signature(transformer.forward).parameters
    names = [name for name in MODEL_INPUTS if name in accepted]

    class TokenVectors(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.transformer = transformer

        def forward(self, *inputs: torch.Tensor) -> torch.Tensor:
            outputs = self.transformer(**dict(zip(names, inputs, strict=True)))
            hidden: torch.Tensor = outputs.last_hidden_state
            return hidden

    # A padded second row, so tracing takes the masked path real batches take.
    ids = torch.full((2, 16), 1000, dtype=torch.long)
    mask = torch.ones_like(ids)
    mask[1, 8:] = 0
    sample = {"input_ids": ids, "attention_mask": mask, "token_type_ids": torch.zeros_like(ids)}
    axes = {name: {0: "batch", 1: "tokens"} for name in [*names, "token_vectors"]}
    # The tracer warns about shape checks it turns into constants; the agreement check that
    # follows is what tells whether the copy is right, and warnings here would reach the user.
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(
            TokenVectors(),
            tuple(sample[name] for name in names),
            str(target),
            input_names=names,
            output_names=["token_vectors"],
            dynamic_axes=axes,
            opset_version=OPSET,
            dynamo=False,
        )
