"""Shared runs of the scripted investigators (a few seconds each), and the real-model switch."""

from __future__ import annotations

import asyncio
import os
from datetime import UTC, datetime

import pytest

from domain.llm import MemoryCallRecorder
from evals.runner import run_suite
from evals.scenario import load_scenarios
from evals.scoring.scoreboard import RunInfo, Scoreboard, build_scoreboard
from evals.scripted.investigators import Style, scripted


def scripted_board(style: Style) -> Scoreboard:
    """The whole bundled suite played by one scripted investigator."""
    recorder = MemoryCallRecorder(limit=100_000)
    scenarios = load_scenarios()
    results = asyncio.run(
        run_suite(scenarios, scripted(style, recorder), records=lambda: recorder.records)
    )
    started = datetime.now(UTC)
    run = RunInfo(investigator=f"scripted/{style.value}", scenario_set_hash="-", started_at=started)
    return build_scoreboard(results, run)


@pytest.fixture(scope="session")
def competent() -> Scoreboard:
    """The competent investigator's scoreboard."""
    return scripted_board(Style.COMPETENT)


@pytest.fixture(scope="session")
def poor() -> Scoreboard:
    """The poor investigator's scoreboard."""
    return scripted_board(Style.POOR)


@pytest.fixture
def llm_model() -> str:
    """The configured model for tests marked llm; skipped when none is set."""
    model = os.environ.get("FM_LLM_MODEL", "")
    if not model:
        pytest.skip("FM_LLM_MODEL is not set: no real model to evaluate")
    return model
