"""`fm doctor` on the embedding model's ONNX copy, and its LanceDB listing that skips LanceDB."""

from __future__ import annotations

from pathlib import Path

import lancedb
import pyarrow as pa

from bot.cli.doctor import Verdict, check_model_copy
from bot.cli.doctor_probes import list_lancedb_tables
from rag.embeddings.model import resolve_model_path
from rag.embeddings.onnx_export import Export, TextLimits, export_folder, record


def test_a_missing_copy_warns_and_names_the_commands_that_make_it(tmp_path: Path) -> None:
    check = check_model_copy(None, tmp_path / "models")

    assert check.verdict is Verdict.WARN
    assert "no ONNX copy" in check.detail
    assert "fm kb ingest" in check.detail


def test_a_ready_copy_is_ok_and_says_where_it_is(tmp_path: Path) -> None:
    folder = export_folder(resolve_model_path(None), tmp_path / "models")
    folder.mkdir(parents=True)
    record(Export(folder, limits=TextLimits(256, lowercase=False)), resolve_model_path(None))

    check = check_model_copy(None, tmp_path / "models")

    assert check.verdict is Verdict.OK
    assert str(folder) in check.detail


def test_a_model_recorded_as_impossible_to_copy_warns_with_the_reason(tmp_path: Path) -> None:
    folder = export_folder(resolve_model_path(None), tmp_path / "models")
    folder.mkdir(parents=True)
    record(Export(folder, unsupported="its pooling is CLS"), resolve_model_path(None))

    check = check_model_copy(None, tmp_path / "models")

    assert check.verdict is Verdict.WARN
    assert "its pooling is CLS" in check.detail


def test_a_missing_model_has_no_copy_to_check(tmp_path: Path) -> None:
    check = check_model_copy(str(tmp_path / "no-such-model"), tmp_path / "models")

    assert check.verdict is Verdict.WARN


def test_a_local_database_lists_the_tables_lancedb_itself_lists(tmp_path: Path) -> None:
    database = lancedb.connect(tmp_path / "lancedb")
    rows = pa.table({"text": ["a"]})
    database.create_table("evidence", rows)
    database.create_table("knowledge", rows)
    (tmp_path / "lancedb" / "notes.txt").write_text("not a table")

    listed = list_lancedb_tables(str(tmp_path / "lancedb"), {})

    assert sorted(listed) == sorted(database.list_tables().tables) == ["evidence", "knowledge"]
