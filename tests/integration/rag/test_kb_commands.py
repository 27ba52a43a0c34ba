"""`fm kb ingest` and `fm kb search --json` on the global KB and on personal runbooks."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from bot.cli.kb import kb_ingest, kb_search
from bot.settings import Settings, load_settings
from rag.embeddings.backend import export_model
from rag.embeddings.embedder import SentenceTransformerEmbedder
from rag.embeddings.model import resolve_model_path
from tests.loghub import RUNBOOKS, LogSystem

pytestmark = pytest.mark.slow
KEYS = {"source", "line_start", "line_end", "timestamp", "score", "text"}


@pytest.fixture(scope="module")
def model_copy(
    tmp_path_factory: pytest.TempPathFactory, model_embedder: SentenceTransformerEmbedder
) -> Path:
    """The model's ONNX copy, made once here as the first `fm kb` command would make it."""
    folder = tmp_path_factory.mktemp("models")
    export_model(resolve_model_path(None), folder)
    return folder


@pytest.fixture
def settings(request: pytest.FixtureRequest, tmp_path: Path, model_copy: Path) -> Settings:
    """Settings pointing at a fresh data directory (the model's copy is already made once).

    Parametrized with "s3", the knowledge base is in a bucket of the local S3 server instead.
    """
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "models").symlink_to(model_copy)
    env = {"FM_DATA_DIR": str(tmp_path / "data"), "FM_LANCEDB_URI": str(tmp_path / "kb")}
    if getattr(request, "param", "local") == "s3":
        env.update(request.getfixturevalue("s3_bucket").env("kb"))
    return load_settings(env=env, env_file=None)


ON_DISK_AND_S3 = pytest.mark.parametrize("settings", ["local", "s3"], indirect=True)


@pytest.fixture
def runbook_dir(tmp_path: Path) -> Path:
    """A small directory of runbooks, as an operator would ingest it."""
    target = tmp_path / "runbooks"
    source = RUNBOOKS / "prometheus-operator" / "node"
    shutil.copytree(source, target / "node", ignore=shutil.ignore_patterns("NodeNetwork*"))
    return target


def json_hits(capsys: pytest.CaptureFixture[str]) -> list[dict[str, object]]:
    out = capsys.readouterr().out
    return [json.loads(line) for line in out.splitlines()]


@ON_DISK_AND_S3
def test_ingest_then_search_json_prints_one_cited_hit_per_line(
    settings: Settings, runbook_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert kb_ingest(settings, [str(runbook_dir)], "global") == 0
    out = capsys.readouterr().out
    assert "ingested runbooks/node/NodeRAIDDegraded.md:" in out

    assert kb_search(settings, "RAID array degraded disk failure", "global", True) == 0

    hits = json_hits(capsys)
    assert hits
    assert all(set(hit) == KEYS for hit in hits)
    assert str(hits[0]["source"]).startswith("runbooks/node/NodeRAID")
    first = hits[0]
    lines = (runbook_dir.parent / str(first["source"])).read_text().split("\n")
    start, end = int(str(first["line_start"])), int(str(first["line_end"]))
    assert first["text"] == "\n".join(lines[start - 1 : end])


@ON_DISK_AND_S3
def test_a_log_hit_carries_its_timestamp(
    settings: Settings, capsys: pytest.CaptureFixture[str]
) -> None:
    log = LogSystem("HDFS").log_path
    assert kb_ingest(settings, [str(log)], "global") == 0
    capsys.readouterr()

    kb_search(settings, "PacketResponder terminating", "global", True)

    hit = json_hits(capsys)[0]
    assert hit["source"] == "HDFS_2k.log"
    assert str(hit["timestamp"]).startswith("2008-11-")
    assert "PacketResponder" in str(hit["text"])


def test_personal_runbooks_are_kept_apart_from_the_global_kb(
    settings: Settings, runbook_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert (
        kb_ingest(settings, [str(runbook_dir / "node" / "NodeRAIDDegraded.md")], "user:U0ABC") == 0
    )
    capsys.readouterr()

    kb_search(settings, "RAID degraded", "user:U0ABC", True)
    mine = json_hits(capsys)
    kb_search(settings, "RAID degraded", "global", True)
    global_hits = json_hits(capsys)
    kb_search(settings, "RAID degraded", "user:U0XYZ", True)
    theirs = json_hits(capsys)

    assert {hit["source"] for hit in mine} == {"NodeRAIDDegraded.md"}
    assert global_hits == []
    assert theirs == []


def test_human_output_and_bad_arguments(
    settings: Settings, runbook_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    kb_ingest(settings, [str(runbook_dir)], "global")
    capsys.readouterr()

    assert kb_search(settings, "clock skew ntp", "global", False) == 0
    assert "1. runbooks/node/NodeClock" in capsys.readouterr().out
    assert kb_ingest(settings, ["/no/such/file.md"], "global") == 2
    assert kb_search(settings, "x", "team:T1", True) == 2
    assert "expected 'global' or 'user:<slack-user-id>'" in capsys.readouterr().err


def test_a_binary_file_is_skipped_and_the_exit_code_says_so(
    settings: Settings, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    binary = tmp_path / "image.png"
    binary.write_bytes(b"\x89PNG\r\n\x1a\n" + b"\x00" * 64)

    assert kb_ingest(settings, [str(binary)], "global") == 1
    assert "skipped image.png: image.png is a PNG image, not text" in capsys.readouterr().err
