"""`fm run`: Slack needs its tokens; without them it points at the console surface."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from bot.cli import main
from tests.paths import BROKEN_WORKFLOWS


@pytest.fixture(autouse=True)
def clean_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in list(os.environ):
        if name.startswith(("FM_", "SLACK_")):
            monkeypatch.delenv(name)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("FM_DATA_DIR", str(tmp_path / "data"))


@pytest.mark.parametrize("argv", [["run"], ["run", "--http", "--port", "4000"]])
def test_running_for_slack_without_a_bot_token_says_what_to_set_and_offers_the_console(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(argv)

    err = capsys.readouterr().err
    assert code == 2
    assert "SLACK_BOT_TOKEN is not set" in err
    assert "fm run --console" in err
    assert "Traceback" not in err


def test_a_broken_workflow_catalog_stops_the_bot_naming_the_setting(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("SLACK_BOT_TOKEN", "xoxb-test")
    monkeypatch.setenv("SLACK_APP_TOKEN", "xapp-test")
    monkeypatch.setenv("FM_WORKFLOW_CATALOG_DIR", str(BROKEN_WORKFLOWS))

    code = main(["run"])

    err = capsys.readouterr().err
    assert code == 2
    assert "FM_WORKFLOW_CATALOG_DIR: the workflow catalog in" in err
    assert f"fm catalog validate {BROKEN_WORKFLOWS}" in err
    assert "zz-duplicate.yaml: uncordon-node@1.0.0 is also defined in valid.yaml" in err
    assert "Traceback" not in err
