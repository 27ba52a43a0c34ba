"""The suite against the configured real model (marked llm; skipped without FM_LLM_MODEL)."""

from __future__ import annotations

from pathlib import Path

import pytest

from domain.llm import MemoryCallRecorder
from evals.cli import main


@pytest.mark.llm
@pytest.mark.timeout(3600)
def test_the_configured_model_investigates_the_suite_without_showing_anything_unsafe(
    llm_model: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The edge builds the gateway exactly as `fm run` does; evals itself never imports bot.
    # Imported here so a move of these modules breaks only this opt-in test, not collection.
    from bot.adapters.stores import SystemClock
    from bot.settings import load_settings
    from bot.wiring.runtime import build_llm

    recorder = MemoryCallRecorder(limit=1_000_000)
    llm = build_llm(load_settings(), SystemClock(), recorder)
    code = main(["--out", str(tmp_path), "--concurrency", "2"], llm=llm, recorder=recorder)
    out = capsys.readouterr().out
    assert code == 0, out
    assert llm_model in out
    assert (tmp_path / "scoreboard.json").is_file()
