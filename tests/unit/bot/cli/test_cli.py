"""The `fm` command line: `fm catalog validate`, settings errors, and `fm db upgrade`."""

from __future__ import annotations

import os
import sys
import types
from pathlib import Path

import pytest

from bot.cli import main
from tests.paths import REPO_ROOT

REPO = REPO_ROOT


@pytest.fixture(autouse=True)
def clean_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """No Slack or FM_ variables from the real environment, no .env, data in a temp directory."""
    for name in list(os.environ):
        if name.startswith(("FM_", "SLACK_")):
            monkeypatch.delenv(name)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("FM_DATA_DIR", str(tmp_path / "data"))
    return tmp_path / "data"


def test_catalog_validate_accepts_the_test_catalog_and_lists_its_workflows(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code = main(["catalog", "validate", str(REPO / "tests" / "data" / "workflows")])

    out, err = capsys.readouterr()
    assert code == 0
    assert err == ""
    assert "Catalog OK: 7 workflows in 6 files." in out
    for workflow_id in (
        "restart-crashlooping-deployment",
        "cordon-drain-node",
        "rollback-deployment",
    ):
        assert workflow_id in out


def test_catalog_validate_accepts_the_example_catalog(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["catalog", "validate", str(REPO / "examples" / "workflows")])

    assert code == 0
    assert "Catalog OK" in capsys.readouterr().out


def test_catalog_validate_lists_every_problem_of_a_broken_catalog_and_exits_1(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code = main(["catalog", "validate", str(REPO / "tests" / "data" / "workflows-broken")])

    out, err = capsys.readouterr()
    assert code == 1
    assert out == ""
    for expected in (
        "has 14 problem(s)",
        "bad-yaml.yaml: not valid YAML (line 3",
        "missing-fields.yaml: scale-deployment: steps: Field required",
        "labels.priority: Value error, priorities must be P0, P1, P2, P3 or '*'",
        "dangerous-step.yaml: wipe-data-directory: step 1 is dangerous (deletes files",
        "verification command 1 is not read-only (deletes pods",
        "TARGET_NAMESPACE is used in a command but has neither a pattern nor an enum",
        "steps use undeclared parameters: TARGET_DEPLOYMENT",
        "parameters.0: Value error, min is greater than max",
        "enum values ['fast', 'slow'] are not of type integer",
        "zz-duplicate.yaml: uncordon-node@1.0.0 is also defined in valid.yaml",
    ):
        assert expected in err


def test_catalog_validate_says_when_the_directory_does_not_exist(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["catalog", "validate", str(tmp_path / "absent")])

    assert code == 1
    assert "absent: not a directory" in capsys.readouterr().err


def test_catalog_validate_says_when_a_directory_has_no_workflows(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["catalog", "validate", str(tmp_path)])

    assert code == 1
    assert "no workflow files (*.yaml, *.yml)" in capsys.readouterr().err


@pytest.mark.parametrize(
    "argv",
    [["run"], ["doctor"], ["db", "upgrade"], ["kb", "search", "x"], ["catalog", "validate", "d"]],
)
def test_a_bad_setting_stops_every_command_with_the_variable_named(
    argv: list[str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("FM_LLM_TIMEOUT_S", "-3")

    code = main(argv)

    err = capsys.readouterr().err
    assert code == 2
    assert "FM_LLM_TIMEOUT_S: expected a positive number of seconds" in err
    assert "Traceback" not in err


def test_a_misspelt_variable_gets_a_suggestion(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("FM_ALERTS_CHANNEL", "C0123")

    assert main(["doctor"]) == 2
    assert "did you mean FM_ALERT_CHANNEL?" in capsys.readouterr().err


def test_the_dotenv_file_in_the_working_directory_is_read(
    clean_env: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    Path(".env").write_text("FM_MAX_UPLOAD_MB=-1\n")

    assert main(["doctor"]) == 2
    assert "FM_MAX_UPLOAD_MB" in capsys.readouterr().err


def test_a_knowledge_base_must_be_global_or_a_user(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["kb", "search", "x", "--kb", "team"])

    assert exited.value.code == 2
    assert "expected 'global' or 'user:<slack-user-id>'" in capsys.readouterr().err


def test_db_upgrade_migrates_the_configured_database(
    clean_env: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    upgraded: list[str] = []
    fake = types.ModuleType("storage.schema.migrate")
    fake.upgrade = upgraded.append  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "storage.schema.migrate", fake)

    code = main(["db", "upgrade"])

    assert code == 0
    assert upgraded == [f"sqlite+aiosqlite:///{clean_env}/fm.db"]
    assert "up to date" in capsys.readouterr().out


def test_a_failed_db_upgrade_is_reported_without_a_traceback(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def refuse(url: str) -> None:
        raise OSError("disk full")

    fake = types.ModuleType("storage.schema.migrate")
    fake.upgrade = refuse  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "storage.schema.migrate", fake)

    assert main(["db", "upgrade"]) == 1
    err = capsys.readouterr().err
    assert "`fm db upgrade` failed: disk full" in err
    assert "Traceback" not in err


def test_help_works_without_any_settings(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["--help"])

    assert exited.value.code == 0
    assert "doctor" in capsys.readouterr().out


def test_after_db_upgrade_the_doctor_finds_the_schema_up_to_date(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["db", "upgrade"]) == 0
    capsys.readouterr()

    assert main(["doctor"]) == 0
    out = capsys.readouterr().out
    assert "ok    database" in out
    assert "schema is up to date" in out
