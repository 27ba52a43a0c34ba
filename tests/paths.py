"""Where the test data lives: `tests/data/`, inside the repository (sources in SOURCES.csv)."""

from __future__ import annotations

from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
"""The repository's root folder."""
TEST_DATA = REPO_ROOT / "tests" / "data"
LOGHUB = TEST_DATA / "loghub"
RUNBOOKS = TEST_DATA / "runbooks"
ALERTS = TEST_DATA / "alerts"
SLACK_SAMPLES = TEST_DATA / "slack"
WORKFLOWS = TEST_DATA / "workflows"
BROKEN_WORKFLOWS = TEST_DATA / "workflows-broken"
INCIDENTS = TEST_DATA / "incidents"
