"""Investigation slots: at most so many analyses at once, the others in line by age."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from bot.services.alerting.slots import InvestigationSlots

T0 = datetime(2026, 11, 21, 14, 0, tzinfo=UTC)


def at(seconds: int) -> datetime:
    return T0 + timedelta(seconds=seconds)


def test_the_first_ones_start_and_the_rest_wait_in_the_order_they_opened() -> None:
    slots = InvestigationSlots(2)

    assert slots.take("a", opened_at=at(0)) == 0
    assert slots.take("b", opened_at=at(1)) == 0
    assert slots.take("d", opened_at=at(3)) == 1
    assert slots.take("c", opened_at=at(2)) == 1  # older: ahead of d
    assert slots.take("d", opened_at=at(3)) == 2
    assert slots.running == 2


def test_a_freed_slot_goes_to_the_head_of_the_line_only() -> None:
    slots = InvestigationSlots(1)
    slots.take("a", opened_at=at(0))
    slots.take("b", opened_at=at(1))
    slots.take("c", opened_at=at(2))
    slots.release("a")

    assert slots.take("c", opened_at=at(2)) == 1  # b is older and still waits
    assert slots.take("b", opened_at=at(1)) == 0
    slots.release("b")
    assert slots.take("c", opened_at=at(2)) == 0


def test_a_case_that_no_longer_waits_leaves_the_line() -> None:
    slots = InvestigationSlots(1)
    slots.take("a", opened_at=at(0))
    slots.take("b", opened_at=at(1))
    slots.take("c", opened_at=at(2))
    slots.release("b")  # closed while waiting

    assert slots.take("c", opened_at=at(2)) == 1
    slots.release("a")
    assert slots.take("c", opened_at=at(2)) == 0


def test_at_least_one_analysis_is_allowed() -> None:
    with pytest.raises(ValueError, match="at least one"):
        InvestigationSlots(0)
