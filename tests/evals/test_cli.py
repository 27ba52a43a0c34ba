"""`python -m evals` runs the suite, prints the scoreboard, writes JSON, markdown and charts."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from domain.llm import MemoryCallRecorder
from evals.cli import EXIT_USAGE, main
from evals.scenario import load_scenarios
from evals.scripted.investigators import ScriptedInvestigator, Style

PNG = b"\x89PNG\r\n\x1a\n"


def test_without_a_model_the_competent_investigator_runs_and_the_results_are_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(
        ["--scenario", "db-pool-cut", "--scenario", "maintenance-blip", "--out", str(tmp_path)]
    )
    out = capsys.readouterr().out
    assert code == 0
    assert out.startswith("# Evaluation: scripted/competent")
    assert "| Root cause found | 100% of 1 |" in out
    assert f"Wrote {tmp_path / 'scoreboard.json'}" in out
    board = json.loads((tmp_path / "scoreboard.json").read_text())
    assert [r["scenario_id"] for r in board["results"]] == ["db-pool-cut", "maintenance-blip"]
    assert len(board["run"]["scenario_set_hash"]) == 64
    assert board["run"]["prompt_hashes"]["investigating"]
    assert (tmp_path / "scoreboard.md").read_text().startswith("# Evaluation")
    for chart in ("reliability.png", "scenarios.png"):
        assert (tmp_path / chart).read_bytes().startswith(PNG)


def test_the_poor_investigator_is_chosen_by_flag(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert (
        main(["--investigator", "poor", "--scenario", "db-pool-cut", "--out", str(tmp_path)]) == 0
    )
    out = capsys.readouterr().out
    assert out.startswith("# Evaluation: scripted/poor")
    assert "| Root cause found | 0% of 1 |" in out


def test_a_model_handed_in_is_used_and_named_from_its_call_records(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (scenario,) = load_scenarios(only=["k8s-oom-kill"])
    recorder = MemoryCallRecorder()
    model = ScriptedInvestigator(scenario, Style.COMPETENT, recorder)
    code = main(
        ["--scenario", "k8s-oom-kill", "--out", str(tmp_path)], llm=model, recorder=recorder
    )
    assert code == 0
    assert capsys.readouterr().out.startswith("# Evaluation: scripted/competent")
    board = json.loads((tmp_path / "scoreboard.json").read_text())
    # consulting, two investigating turns, and the second look at the confident root cause
    assert board["results"][0]["usage"]["calls"] == len(recorder.records) == 5


def test_the_judge_without_a_model_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--judge"]) == EXIT_USAGE
    assert "--judge needs a model" in capsys.readouterr().out


def test_an_unknown_scenario_is_refused_by_name(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--scenario", "no-such-thing"]) == EXIT_USAGE
    assert "unknown scenarios: no-such-thing" in capsys.readouterr().out


def test_python_dash_m_evals_runs_as_make_eval_does(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "evals", "--scenario", "clock-skew", "--out", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "| clock-skew | root_cause | ✅ |" in done.stdout
    assert done.stderr == ""  # withheld-command warnings stay off the scoreboard's terminal
