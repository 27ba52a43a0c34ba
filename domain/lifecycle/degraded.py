"""Degraded mode: enter when the investigation is stuck, leave when it moves again."""

from __future__ import annotations

from datetime import datetime

from domain.case import Case
from domain.errors import NotAllowedToAnswerError, PreconditionFailedError
from domain.investigation.evidence_requests import blocked_critical
from domain.investigation.hypotheses import HypothesisStatus
from domain.lifecycle.decisions import is_responder
from domain.lifecycle.responders import ResponderSet
from domain.lifecycle.special_states import (
    DegradedMode,
    DegradedModeType,
    EscalationState,
    EscalationType,
    WayOut,
)
from domain.lifecycle.transitions import ensure_not_terminal
from domain.people import mention

NO_PROGRESS_TURNS = 3
BLOCKED_CRITICAL_LIMIT = 3

FALLBACKS = (
    "Proceed with the best guess at lower confidence, escalate to someone with more access "
    "or expertise, close the case, or try a different category of hypothesis."
)


def should_enter_degraded_mode(case: Case) -> DegradedModeType | None:
    """No progress for 3 turns; every hypothesis inconclusive; or ≥3 critical requests blocked."""
    if case.turns_without_progress >= NO_PROGRESS_TURNS:
        return DegradedModeType.NO_PROGRESS
    hypotheses = list(case.hypotheses.values())
    if hypotheses and all(h.status is HypothesisStatus.INCONCLUSIVE for h in hypotheses):
        return DegradedModeType.HYPOTHESIS_DEADLOCK
    if len(blocked_critical(case.evidence_requests)) >= BLOCKED_CRITICAL_LIMIT:
        return DegradedModeType.LIMITED_DATA
    return None


def degraded_reason(case: Case, mode: DegradedModeType) -> str:
    """Plain words for why the investigation is degraded."""
    if mode is DegradedModeType.NO_PROGRESS:
        return f"No progress for {case.turns_without_progress} turns."
    if mode is DegradedModeType.HYPOTHESIS_DEADLOCK:
        return f"All {len(case.hypotheses)} hypotheses are inconclusive."
    labels = ", ".join(r.label for r in blocked_critical(case.evidence_requests))
    return f"Critical evidence is blocked ({labels}); escalation is recommended."


def update_degraded_mode(case: Case, *, now: datetime) -> DegradedMode | None:
    """Enter, escalate or exit degraded mode from the case's current state.

    Blocked critical evidence recommends escalation whatever else made the case degraded: a
    stalled case whose data is out of reach needs someone with more access either way.
    """
    if case.is_terminal:
        return case.degraded_mode
    trigger = should_enter_degraded_mode(case)
    active = case.degraded_mode if case.degraded_mode and case.degraded_mode.is_active else None
    blocked = len(blocked_critical(case.evidence_requests)) >= BLOCKED_CRITICAL_LIMIT
    if trigger is not None and active is None:
        case.degraded_mode = DegradedMode(
            mode_type=trigger,
            entered_at=now,
            reason=degraded_reason(case, trigger),
            fallback_offered=FALLBACKS,
            escalation_recommended=blocked,
        )
    elif active is not None and blocked:
        active.escalation_recommended = True
    elif active is not None and trigger is None:
        active.exited_at = now
        active.exit_reason = "The investigation is making progress again."
    return case.degraded_mode


def active_degraded(case: Case) -> DegradedMode | None:
    """The degraded mode the case is in now, if any."""
    degraded = case.degraded_mode
    return degraded if degraded is not None and degraded.is_active else None


def mark_said(case: Case, *, now: datetime) -> bool:
    """Note that this turn's reply says the case is stuck, with its ways out; False when an
    earlier reply already did (this one refers to it in a line) or the case is not stuck."""
    degraded = active_degraded(case)
    if degraded is None or degraded.said_at is not None:
        return False
    degraded.said_at = now
    return True


def choose_way_out(
    case: Case,
    way: WayOut,
    *,
    by: str,
    now: datetime,
    responders: ResponderSet | None = None,
) -> DegradedMode:
    """A responder's click on one of the ways out of a stuck case, recorded (who, which, when).

    Raises when the case is finished, the person may not answer for it, or it is no longer stuck.
    """
    ensure_not_terminal(case)
    if not is_responder(case, by, responders=responders):
        raise NotAllowedToAnswerError(
            f"{mention(by)} may not choose for this case", named=[], responders=responders
        )
    degraded = active_degraded(case)
    if degraded is None:
        raise PreconditionFailedError("the case is not stuck any more")
    degraded.chosen, degraded.chosen_by, degraded.chosen_at = way, by, now
    degraded.user_choice = way.label
    if way is WayOut.ESCALATE:
        problem = case.problem_verification
        case.escalation_state = EscalationState(
            escalation_type=EscalationType.PERMISSIONS_REQUIRED
            if degraded.escalation_recommended
            else EscalationType.NO_PROGRESS,
            reason=degraded.reason,
            escalated_at=now,
            context_summary=problem.symptom_statement if problem else case.title,
        )
    case.add_participant(by)
    return degraded
