"""At start-up, a bot without the model's ONNX copy makes one in a child process, then loads it."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest

from bot.wiring import model_copy
from bot.wiring.model_copy import make_copy_in_background
from rag.embeddings.embedder import load_model
from rag.embeddings.model import resolve_model_path
from rag.embeddings.onnx_encoder import OnnxEncoder
from rag.embeddings.onnx_export import Export, TextLimits, export_folder, record, recorded_export
from rag.embeddings.torch_encoder import TorchEncoder

MODEL = resolve_model_path(None)
ROOT = Path(__file__).resolve().parents[4]
ORPHAN_STOP_S = 30.0


def exporting_processes(export_dir: Path) -> list[str]:
    """Command lines of running `python -m rag.embeddings.export_main` saving in `export_dir`."""
    found = []
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            words = cmdline.read_bytes().split(b"\0")
        except OSError:  # the process ended meanwhile
            continue
        if b"rag.embeddings.export_main" in words and str(export_dir).encode() in words:
            found.append(b" ".join(words).decode())
    return found


async def test_a_recorded_copy_is_not_made_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = export_folder(MODEL, tmp_path)
    folder.mkdir(parents=True)
    record(Export(folder, limits=TextLimits(256, lowercase=False)), MODEL)

    async def no_process(*args: object, **options: object) -> None:
        raise AssertionError("no process should be started")

    monkeypatch.setattr(model_copy.asyncio, "create_subprocess_exec", no_process)

    await make_copy_in_background(MODEL, tmp_path)


async def test_a_copy_that_cannot_be_saved_is_logged_and_the_bot_goes_on(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    blocked = tmp_path / "models"
    blocked.write_text("a file where the copy's folder would go")

    await make_copy_in_background(MODEL, blocked)

    assert "the ONNX copy of the embedding model was not made" in caplog.text
    assert exporting_processes(blocked) == []


@pytest.mark.slow
async def test_stopping_the_bot_stops_the_child_and_leaves_no_copy_recorded(
    tmp_path: Path,
) -> None:
    making = asyncio.create_task(make_copy_in_background(MODEL, tmp_path / "models"))
    await asyncio.sleep(2)
    assert exporting_processes(tmp_path / "models")

    making.cancel()
    with pytest.raises(asyncio.CancelledError):
        await making

    assert exporting_processes(tmp_path / "models") == []
    assert recorded_export(MODEL, tmp_path / "models") is None
    assert not list((tmp_path / "models").rglob("*.tmp"))


@pytest.mark.slow
async def test_once_the_copy_is_made_the_bot_runs_the_model_from_it(tmp_path: Path) -> None:
    export_dir = tmp_path / "models"
    assert isinstance(load_model(MODEL, export_dir), TorchEncoder)

    await make_copy_in_background(MODEL, export_dir)

    assert recorded_export(MODEL, export_dir) is not None
    assert isinstance(load_model(MODEL, export_dir), OnnxEncoder)


ORPHAN = """
import os, subprocess, sys
command = [
    sys.executable, "-m", "rag.embeddings.export_main", sys.argv[1], sys.argv[2], str(os.getpid())
]
subprocess.Popen(command)
"""


@pytest.mark.slow
async def test_a_child_whose_bot_was_killed_stops_by_itself(tmp_path: Path) -> None:
    export_dir = tmp_path / "models"
    started = await asyncio.create_subprocess_exec(
        sys.executable, "-c", ORPHAN, str(MODEL), str(export_dir), cwd=ROOT
    )
    await started.wait()  # the "bot" is gone at once; its child is left behind

    for _ in range(int(ORPHAN_STOP_S / 0.2)):
        if not exporting_processes(export_dir):
            break
        await asyncio.sleep(0.2)
    else:
        raise AssertionError(f"the orphaned export still runs after {ORPHAN_STOP_S:.0f} s")
    assert recorded_export(MODEL, export_dir) is None
