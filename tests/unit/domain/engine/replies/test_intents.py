"""Reading short typed answers and explicit status requests."""

from __future__ import annotations

import pytest

from domain.engine.intents import StatusIntent, parse_decision, parse_status_intent
from domain.lifecycle.confirmations import Decision
from domain.lifecycle.status import CaseStatus


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("yes", Decision.YES),
        ("Yes, that's right. Please investigate.", Decision.YES),
        ("Yep!", Decision.YES),
        ("✅", Decision.YES),
        ("correct", Decision.YES),
        ("Yes, the evidence is accurate", Decision.YES),
        ("no", Decision.NO),
        ("Nope.", Decision.NO),
        ("not really", Decision.NO),
        ("Actually, let me recheck that data", Decision.NO),
        ("not sure", Decision.UNSURE),
        ("I need to verify this evidence", Decision.UNSURE),
        ("yes but it's 50% not 30%", None),
        ("Yes, and it started 3 hours ago, affecting all regions in the EU and US", None),
        ("No, it's 50% of requests and it started two hours ago", None),
        ("the pool is at 95%", None),
        ("", None),
        ("   ", None),
    ],
)
def test_short_answers_are_decisions_and_qualified_ones_are_corrections(
    text: str, expected: Decision | None
) -> None:
    assert parse_decision(text) is expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("close this", StatusIntent(CaseStatus.CLOSED)),
        ("Please close the case", StatusIntent(CaseStatus.CLOSED)),
        ("abandon", StatusIntent(CaseStatus.CLOSED)),
        (
            "resolved: rolled back to v2.1.2",
            StatusIntent(CaseStatus.RESOLVED, "rolled back to v2.1.2"),
        ),
        ("Fixed - Restarted PgBouncer", StatusIntent(CaseStatus.RESOLVED, "Restarted PgBouncer")),
        ("investigate", StatusIntent(CaseStatus.INVESTIGATING)),
        ("let's investigate", StatusIntent(CaseStatus.INVESTIGATING)),
        (
            "investigate: Checkout  API 500s since 14:05",
            StatusIntent(CaseStatus.INVESTIGATING, "Checkout API 500s since 14:05"),
        ),
        ("start an investigation", StatusIntent(CaseStatus.INVESTIGATING)),
        ("resolved", None),
        ("how do I close a PagerDuty incident?", None),
        ("the investigation found nothing", None),
    ],
)
def test_explicit_status_requests_are_recognised(text: str, expected: StatusIntent | None) -> None:
    assert parse_status_intent(text) == expected
