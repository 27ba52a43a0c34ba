"""FM_WORKER_STALE_AFTER_S: how long a silent replica's work waits before another resumes it."""

from __future__ import annotations

import pytest

from bot.settings import SettingsError, load_settings


def test_a_silent_replicas_work_is_resumed_after_two_minutes_by_default() -> None:
    assert load_settings({}, env_file=None).worker_stale_after_s == 120


def test_a_few_seconds_can_be_set_for_tests() -> None:
    settings = load_settings({"FM_WORKER_STALE_AFTER_S": "4.5"}, env_file=None)

    assert settings.worker_stale_after_s == 4.5


@pytest.mark.parametrize("value", ["1.9", "0", "-3", "nan", "inf", "soon"])
def test_a_stale_after_below_two_seconds_or_not_a_number_is_named(value: str) -> None:
    with pytest.raises(SettingsError) as caught:
        load_settings({"FM_WORKER_STALE_AFTER_S": value}, env_file=None)

    (line,) = [
        line for line in str(caught.value).splitlines() if "FM_WORKER_STALE_AFTER_S:" in line
    ]
    assert "at least 2" in line
    assert f"(got '{value}')" in line
