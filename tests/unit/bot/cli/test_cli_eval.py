"""`fm eval`: the evaluation suite with a scripted investigator, or against the configured model."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.cli import main
from bot.cli.eval import asks_for_scripted
from tests.fakes.models.llm_server import FakeLLMServer
from tests.paths import REPO_ROOT

SCENARIO = "db-pool-cut"
FM = Path(sys.executable).with_name("fm")


@pytest.fixture
async def llm() -> AsyncIterator[FakeLLMServer]:
    async with FakeLLMServer() as server:
        yield server


@pytest.fixture(autouse=True)
def clean_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """No Slack or FM_ variables from the real environment, no .env, data in a temp directory."""
    for name in list(os.environ):
        if name.startswith(("FM_", "SLACK_")):
            monkeypatch.delenv(name)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("FM_DATA_DIR", str(tmp_path / "data"))
    return tmp_path / "data"


@pytest.mark.parametrize(
    ("style", "found"), [("competent", "| Root cause found | 100% of 1 |"), ("poor", "0% of 1")]
)
def test_fm_eval_plays_the_scripted_investigator_and_prints_the_scoreboard(
    style: str, found: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out_dir = tmp_path / "results"

    code = main(["eval", "--investigator", style, "--scenario", SCENARIO, "--out", str(out_dir)])

    out = capsys.readouterr().out
    assert code == 0
    assert out.startswith(f"# Evaluation: scripted/{style}")
    assert found in out
    board = json.loads((out_dir / "scoreboard.json").read_text())
    assert [r["scenario_id"] for r in board["results"]] == [SCENARIO]


def test_without_a_model_fm_eval_plays_the_competent_investigator(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["eval", "--scenario", SCENARIO, "--out", str(tmp_path)]) == 0
    assert capsys.readouterr().out.startswith("# Evaluation: scripted/competent")


def test_with_a_model_configured_fm_eval_asks_it_through_the_gateway(
    llm: FakeLLMServer,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("FM_LLM_MODEL", llm.model)
    monkeypatch.setenv("FM_LLM_API_BASE", llm.api_base)
    monkeypatch.setenv("FM_LLM_API_KEY", "sk-test-not-a-real-key")

    code = main(["eval", "--scenario", SCENARIO, "--out", str(tmp_path)])

    out = capsys.readouterr().out
    assert code == 0
    # Nothing is scripted, so the fake refuses every call: the model is named, not a script.
    assert out.startswith(f"# Evaluation: {llm.model}")
    assert llm.requests
    assert "| Root cause found | 0% of 1 |" in out


def test_a_scripted_investigator_asked_for_plays_even_with_a_model_configured(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("FM_LLM_MODEL", "openai/never-called")
    monkeypatch.setenv("FM_LLM_API_BASE", "http://127.0.0.1:9/v1")

    code = main(["eval", "--investigator=poor", "--scenario", SCENARIO, "--out", str(tmp_path)])

    assert code == 0
    assert capsys.readouterr().out.startswith("# Evaluation: scripted/poor")


def test_the_harness_options_reach_the_harness(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["eval", "--scenario", "no-such-thing"]) == 2
    assert "unknown scenarios: no-such-thing" in capsys.readouterr().out
    assert asks_for_scripted(["--investigator", "poor"])
    assert not asks_for_scripted(["--scenario", "investigator"])


def test_make_eval_runs_fm_eval(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("FM_", "SLACK_"))}
    done = subprocess.run(
        [str(FM), "eval", "--scenario", "clock-skew", "--out", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        cwd=tmp_path,
        env={**env, "FM_DATA_DIR": str(tmp_path / "data")},
    )
    assert done.returncode == 0, done.stderr
    assert "| clock-skew | root_cause | ✅ |" in done.stdout
    assert done.stderr == ""
    makefile = (REPO_ROOT / "Makefile").read_text()
    assert "$(BIN)/fm eval $(EVAL_ARGS)" in makefile
