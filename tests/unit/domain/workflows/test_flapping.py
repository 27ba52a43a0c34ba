"""A flap: an alert resolved within the debounce closes its case as self-resolved."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from domain.case import ALERT_OPENER, Case
from domain.lifecycle.status import CaseStatus
from domain.workflows.flapping import SELF_RESOLVED, close_self_resolved, is_flap

T0 = datetime(2026, 11, 21, 14, 0, tzinfo=UTC)


def alert_case(user_id: str = ALERT_OPENER) -> Case:
    return Case(
        team_id="T1",
        channel_id="C1",
        thread_ts="1.1",
        user_id=user_id,
        title="HighErrorRate",
        created_at=T0,
        updated_at=T0,
    )


def test_only_a_resolution_within_the_debounce_is_a_flap() -> None:
    assert is_flap(first_seen=T0, resolved_at=T0 + timedelta(seconds=60), debounce_s=60)
    assert not is_flap(first_seen=T0, resolved_at=T0 + timedelta(seconds=61), debounce_s=60)
    assert not is_flap(first_seen=T0, resolved_at=T0, debounce_s=0)


def test_a_flap_closes_the_alert_s_case_with_the_reason_in_its_history() -> None:
    case = alert_case()
    later = T0 + timedelta(seconds=42)

    entry = close_self_resolved(case, now=later, after_s=42)

    assert case.status is CaseStatus.CLOSED
    assert case.closure_reason == SELF_RESOLVED
    assert case.closed_at == later
    assert case.status_history == [entry]
    assert entry.reason == "the alert resolved itself 42 s after firing"


def test_a_case_a_person_opened_never_closes_itself() -> None:
    with pytest.raises(ValueError, match="alert"):
        close_self_resolved(alert_case("U123"), now=T0, after_s=1)
