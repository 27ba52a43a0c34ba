"""Alerts that resolve by themselves: a flap opens no investigation, its case is closed.

An alert resolved within the debounce of its first firing notification is a flap (a blip, a
flapping check): its case is noted and closed as self-resolved before any model call. This is
the one status change nobody confirms: the case was opened by the alert, not by a person, and
the alert itself said it is over; a closed case stays readable, and if the alert fires again a
new case opens.
"""

from __future__ import annotations

from datetime import datetime

from domain.case import ALERT_OPENER, Case
from domain.lifecycle.confirmations import ConfirmationState
from domain.lifecycle.status import CaseStatus, CaseStatusTransition
from domain.lifecycle.transitions import check_transition

SELF_RESOLVED = "self_resolved"
"""The closure reason of a flap."""


def is_flap(*, first_seen: datetime, resolved_at: datetime, debounce_s: float) -> bool:
    """Whether an alert resolved within ``debounce_s`` of firing (never with no debounce)."""
    return debounce_s > 0 and (resolved_at - first_seen).total_seconds() <= debounce_s


def close_self_resolved(case: Case, *, now: datetime, after_s: float) -> CaseStatusTransition:
    """Close an alert's case whose alert resolved itself ``after_s`` seconds after firing."""
    if not case.opened_by_alert:
        raise ValueError("only a case an alert opened closes itself")
    check_transition(case.status, CaseStatus.CLOSED)
    entry = CaseStatusTransition(
        from_status=case.status,
        to_status=CaseStatus.CLOSED,
        triggered_at=now,
        triggered_by=ALERT_OPENER,
        reason=f"the alert resolved itself {after_s:.0f} s after firing",
        confirmation_id="",
    )
    for confirmation in case.pending_confirmations():
        confirmation.state = ConfirmationState.SUPERSEDED
    case.status = CaseStatus.CLOSED
    case.closure_reason = SELF_RESOLVED
    case.closed_at = now
    case.updated_at = now
    case.status_history.append(entry)
    return entry
