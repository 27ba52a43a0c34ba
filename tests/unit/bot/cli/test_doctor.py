"""`fm doctor`: each check's verdict and plain-words advice, with fakes for the outside world."""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import pytest

from bot.cli import main
from bot.cli.doctor import (
    Check,
    Verdict,
    check_data_dir,
    check_database,
    check_embedding_model,
    check_lancedb,
    check_llm,
    check_slack,
    run_doctor,
)
from bot.cli.doctor_probes import Migrations, Probes, list_lancedb_tables, select_one
from bot.settings import Settings, load_settings
from rag.embeddings.model import resolve_model_path


@dataclass
class FakeMigrations:
    current: str | None
    head: str = "0002"

    def current_revision(self, url: str) -> str | None:
        return self.current

    def head_revision(self) -> str:
        return self.head


def settings(**env: str) -> Settings:
    return load_settings(env, env_file=None)


def fake_probes(current: str | None = "0002") -> Probes:
    return Probes(
        select_one=lambda url: None,
        migrations=lambda: FakeMigrations(current),
        lancedb_tables=lambda uri, options: ["evidence", "runbooks"],
        embedding_dimension=lambda path: 384,
    )


def sqlite_url(tmp_path: Path) -> str:
    path = tmp_path / "fm.db"
    sqlite3.connect(path).close()
    return f"sqlite+aiosqlite:///{path}"


def test_a_missing_bot_token_warns_that_the_console_surface_runs_instead() -> None:
    check = check_slack(settings())

    assert check.verdict is Verdict.WARN
    assert "SLACK_BOT_TOKEN is not set" in check.detail
    assert "console" in check.detail


def test_http_mode_without_a_signing_secret_warns() -> None:
    check = check_slack(settings(SLACK_BOT_TOKEN="xoxb-1"))

    assert check.verdict is Verdict.WARN
    assert "SLACK_SIGNING_SECRET" in check.detail


@pytest.mark.parametrize(
    ("env", "mode"),
    [
        ({"SLACK_BOT_TOKEN": "xoxb-1", "SLACK_APP_TOKEN": "xapp-1"}, "Socket Mode"),
        ({"SLACK_BOT_TOKEN": "xoxb-1", "SLACK_SIGNING_SECRET": "abc"}, "HTTP mode"),
    ],
)
def test_complete_slack_credentials_name_the_mode(env: dict[str, str], mode: str) -> None:
    check = check_slack(load_settings(env, env_file=None))

    assert check.verdict is Verdict.OK
    assert mode in check.detail


def test_a_missing_llm_model_warns_about_no_llm_mode() -> None:
    check = check_llm(settings())

    assert check.verdict is Verdict.WARN
    assert "no-LLM mode" in check.detail
    assert "FM_LLM_MODEL" in check.detail


def test_a_configured_llm_names_its_models() -> None:
    check = check_llm(settings(FM_LLM_MODEL="openai/gpt-4o", FM_LLM_JUDGE_MODEL="openai/o3"))

    assert check.verdict is Verdict.OK
    assert "openai/gpt-4o" in check.detail
    assert "openai/o3" in check.detail


def test_a_writable_data_directory_is_ok(tmp_path: Path) -> None:
    assert check_data_dir(tmp_path).verdict is Verdict.OK


def test_a_missing_data_directory_that_can_be_created_is_ok_and_left_alone(
    tmp_path: Path,
) -> None:
    check = check_data_dir(tmp_path / "a" / "b")

    assert check.verdict is Verdict.OK
    assert "will be created" in check.detail
    assert not (tmp_path / "a").exists()


def test_a_file_where_the_data_directory_should_be_fails(tmp_path: Path) -> None:
    (tmp_path / "data").write_text("")

    check = check_data_dir(tmp_path / "data")

    assert check.verdict is Verdict.FAIL
    assert "FM_DATA_DIR" in check.detail


def test_a_missing_sqlite_file_asks_for_db_upgrade_and_is_not_created(tmp_path: Path) -> None:
    check = check_database(f"sqlite+aiosqlite:///{tmp_path}/fm.db", fake_probes())

    assert check.verdict is Verdict.WARN
    assert "run `fm db upgrade`" in check.detail
    assert not (tmp_path / "fm.db").exists()


def test_an_unmigrated_database_asks_for_db_upgrade(tmp_path: Path) -> None:
    probes = Probes(migrations=lambda: FakeMigrations(current=None))

    check = check_database(sqlite_url(tmp_path), probes)

    assert check == Check("database", Verdict.WARN, check.detail)
    assert "not migrated: run `fm db upgrade`" in check.detail


def test_a_database_behind_head_asks_for_db_upgrade(tmp_path: Path) -> None:
    probes = Probes(migrations=lambda: FakeMigrations(current="0001", head="0002"))

    check = check_database(sqlite_url(tmp_path), probes)

    assert check.verdict is Verdict.WARN
    assert "0001" in check.detail
    assert "fm db upgrade" in check.detail


def test_a_database_at_head_is_ok(tmp_path: Path) -> None:
    probes = Probes(migrations=lambda: FakeMigrations(current="0002", head="0002"))

    assert check_database(sqlite_url(tmp_path), probes).verdict is Verdict.OK


def test_a_database_that_cannot_be_opened_fails_in_plain_words(tmp_path: Path) -> None:
    (tmp_path / "fm.db").mkdir()

    check = check_database(f"sqlite+aiosqlite:///{tmp_path}/fm.db", Probes())

    assert check.verdict is Verdict.FAIL
    assert "cannot connect" in check.detail
    assert "FM_DATABASE_URL" in check.detail


def test_an_unreachable_server_fails_without_echoing_the_password() -> None:
    def refuse(url: str) -> None:
        raise ConnectionRefusedError(f"connect to {url} refused")

    url = "postgresql+asyncpg://fm:hunter2@db.internal:5432/fm"
    check = check_database(url, Probes(select_one=refuse))

    assert check.verdict is Verdict.FAIL
    assert "hunter2" not in check.detail
    assert "ConnectionRefusedError" in check.detail


def test_a_broken_migration_setup_fails_the_database_check_only(tmp_path: Path) -> None:
    def missing() -> Migrations:
        raise ImportError("No module named 'storage.schema.migrate'")

    check = check_database(sqlite_url(tmp_path), Probes(migrations=missing))

    assert check.verdict is Verdict.FAIL
    assert "cannot read the schema revision" in check.detail


def test_the_real_select_one_probe_reaches_sqlite(tmp_path: Path) -> None:
    select_one(sqlite_url(tmp_path))


def test_a_lancedb_directory_not_created_yet_is_ok_and_left_alone(tmp_path: Path) -> None:
    check = check_lancedb(str(tmp_path / "lancedb"), list_lancedb_tables)

    assert check.verdict is Verdict.OK
    assert not (tmp_path / "lancedb").exists()


def test_an_existing_lancedb_directory_is_opened(tmp_path: Path) -> None:
    (tmp_path / "lancedb").mkdir()

    check = check_lancedb(str(tmp_path / "lancedb"), list_lancedb_tables)

    assert check.verdict is Verdict.OK
    assert "0 table(s)" in check.detail


def test_lancedb_that_cannot_be_opened_fails() -> None:
    def unreachable(uri: str, options: Mapping[str, str]) -> list[str]:
        raise OSError("bucket not found")

    check = check_lancedb("s3://missing-bucket/lancedb", unreachable)

    assert check.verdict is Verdict.FAIL
    assert "bucket not found" in check.detail
    assert "FM_LANCEDB_URI" in check.detail


def test_the_bundled_embedding_model_is_found_without_loading_it() -> None:
    def must_not_load(path: Path) -> int:
        raise AssertionError("loaded without --deep")

    check = check_embedding_model(None, deep=False, dimension=must_not_load)

    assert check.verdict is Verdict.OK
    assert "--deep" in check.detail


def test_deep_mode_loads_the_embedding_model() -> None:
    check = check_embedding_model(None, deep=True, dimension=lambda path: 384)

    assert check.verdict is Verdict.OK
    assert "384-d" in check.detail


def test_a_model_that_does_not_load_fails() -> None:
    def broken(path: Path) -> int:
        raise RuntimeError("bad safetensors header")

    check = check_embedding_model(None, deep=True, dimension=broken)

    assert check.verdict is Verdict.FAIL
    assert "bad safetensors header" in check.detail


def test_a_configured_model_that_is_nowhere_fails_naming_the_setting() -> None:
    check = check_embedding_model("nobody/no-such-model-anywhere", deep=False, dimension=len)

    assert check.verdict is Verdict.FAIL
    assert "FM_EMBEDDING_MODEL" in check.detail


def test_an_incomplete_model_directory_names_the_missing_files(tmp_path: Path) -> None:
    (tmp_path / "config.json").write_text("{}")

    with pytest.raises(FileNotFoundError, match=r"model\.safetensors or pytorch_model\.bin"):
        resolve_model_path(str(tmp_path))


def test_the_bundled_model_has_its_files() -> None:
    path = resolve_model_path(None)

    assert (path / "model.safetensors").is_file()


def test_the_doctor_exits_0_when_nothing_fails(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    env = settings(FM_DATA_DIR=str(tmp_path))
    (tmp_path / "fm.db").touch()

    code = run_doctor(env, probes=fake_probes())

    out = capsys.readouterr().out
    assert code == 0
    assert len(out.splitlines()) == 9
    assert "No failures" in out


def test_the_doctor_exits_1_when_a_check_fails(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    env = settings(FM_DATA_DIR=str(tmp_path), FM_EMBEDDING_MODEL=str(tmp_path / "nothing"))

    code = run_doctor(env, probes=fake_probes())

    out = capsys.readouterr().out
    assert code == 1
    assert any(line.startswith("FAIL  embedding model") for line in out.splitlines())


def test_fm_doctor_explains_missing_settings_in_plain_words(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    for name in list(os.environ):
        if name.startswith(("FM_", "SLACK_")):
            monkeypatch.delenv(name)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("FM_DATA_DIR", str(tmp_path / "data"))

    code = main(["doctor"])

    out = capsys.readouterr().out
    assert code == 0
    assert "warn  slack" in out
    assert "SLACK_BOT_TOKEN is not set, so the bot cannot talk to Slack" in out
    assert "no-LLM mode" in out
    assert "run `fm db upgrade`" in out
