"""The living case summary as an incident summary: what people need at a glance, in plain words.

Status in plain words, severity and impact, when it started (and how long it lasted), the cause
with its confidence when there is one, the mitigation's state, the next step and who owns it, and
the questions waiting. Built from the case alone; the renderer words it for its surface.
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum

from domain.base import DomainModel
from domain.case import Case
from domain.investigation.conclusions import Solution
from domain.investigation.evidence_requests import open_requests
from domain.investigation.verification import TemporalState
from domain.lifecycle.confirmations import ConfirmationState, StatusChangePayload
from domain.lifecycle.status import CaseStatus
from domain.people import mention


class Phase(StrEnum):
    """Where the incident stands, as people say it."""

    TRIAGE = "triage"
    """The problem is being stated (consulting)."""
    FIRING = "firing"
    """An alert opened the case and still fires."""
    ONGOING = "ongoing"
    """Being investigated while it still happens."""
    AFTERMATH = "aftermath"
    """Being investigated after it stopped (a post-mortem)."""
    RESOLVED = "resolved"
    CLOSED = "closed"


class Mitigation(StrEnum):
    """How far the mitigation or fix has come."""

    NONE = "none"
    PROPOSED = "proposed"
    APPLIED = "applied"
    ATTESTED = "attested"
    """People said it works; no evidence showed it yet."""
    VERIFIED = "verified"


class SummaryView(DomainModel):
    """Everything the living summary shows."""

    case_id: str
    short_id: str
    phase: Phase
    title: str
    severity: str | None = None
    impact: str | None = None
    started_at: datetime | None = None
    ended_at: datetime | None = None
    duration_minutes: int | None = None
    """How long the case ran, once it ended."""
    cause: str | None = None
    cause_confidence: float | None = None
    cause_settled: bool = False
    """A stated root cause (not only a working conclusion)."""
    mitigation: Mitigation = Mitigation.NONE
    mitigation_title: str | None = None
    next_step: str | None = None
    """What has to happen next, and who does it (people referenced as {@U…})."""
    waiting_questions: int = 0
    stuck: bool = False
    """No progress for several turns: the thread offers ways out."""
    stuck_note: str | None = None
    """While stuck: why, and the way out a responder chose last ({@U…})."""
    outcome: str | None = None
    """How it ended: the resolution, or why it was closed."""
    seen_before: str | None = None
    """The finished case this one looks like (its short id), while the case runs."""
    follow_up: str | None = None
    """Once resolved: the permanent fix still to make, and who owns it ({@U…})."""


def summary_view(case: Case) -> SummaryView:
    """The incident summary of a case as it is now."""
    verification = case.problem_verification
    triage = case.consulting.problem_confirmation
    cause, confidence, settled = _cause(case)
    state, title = _mitigation(case)
    ended = case.resolved_at or case.closed_at
    started = (verification.started_at if verification else None) or case.created_at
    if case.alert is not None:
        started = case.alert.firing_since  # the alert's own start, not when it arrived
    return SummaryView(
        case_id=case.case_id,
        short_id=case.short_id,
        phase=_phase(case),
        title=_title(case),
        severity=_severity(case),
        impact=(verification.user_impact or verification.affected_users if verification else None)
        or (triage.impact if triage else None),
        started_at=started,
        ended_at=ended,
        duration_minutes=int((ended - started).total_seconds() // 60) if ended else None,
        cause=cause,
        cause_confidence=confidence,
        cause_settled=settled,
        mitigation=state,
        mitigation_title=title,
        next_step=None if case.is_terminal else next_step(case),
        waiting_questions=len(case.pending_confirmations()),
        stuck=_stuck(case) is not None,
        stuck_note=_stuck(case),
        outcome=_outcome(case, title),
        seen_before=_seen_before(case),
        follow_up=_follow_up(case),
    )


def _stuck(case: Case) -> str | None:
    """Why a running case is stuck (and what was chosen since); None when it is not."""
    degraded = case.degraded_mode
    if degraded is None or not degraded.is_active or case.is_terminal:
        return None
    if degraded.chosen is None:
        return degraded.reason
    return f"{degraded.reason} {mention(degraded.chosen_by)} chose: {degraded.chosen.label}."


def _seen_before(case: Case) -> str | None:
    kept = case.seen_before
    if kept is None or kept.match is None or case.is_terminal:
        return None
    return kept.match.label


def _phase(case: Case) -> Phase:
    if case.status is CaseStatus.RESOLVED:
        return Phase.RESOLVED
    if case.status is CaseStatus.CLOSED:
        return Phase.CLOSED
    if case.alert is not None and case.alert.resolved_at is None:
        return Phase.FIRING
    if case.status is CaseStatus.CONSULTING:
        return Phase.TRIAGE
    verification = case.problem_verification
    when = verification.temporal_state if verification is not None else None
    return Phase.AFTERMATH if when is TemporalState.HISTORICAL else Phase.ONGOING


def _title(case: Case) -> str:
    verification = case.problem_verification
    if verification is not None and verification.symptom_statement:
        return verification.symptom_statement
    return case.consulting.proposed_problem_statement or case.title or "Not stated yet"


def _severity(case: Case) -> str | None:
    if case.alert is not None and case.alert.severity:
        return case.alert.severity
    verification = case.problem_verification
    if verification is not None and verification.severity not in ("", "UNKNOWN"):
        return verification.severity
    triage = case.consulting.problem_confirmation
    return triage.severity_guess if triage and triage.severity_guess else None


def _cause(case: Case) -> tuple[str | None, float | None, bool]:
    root = case.root_cause_conclusion
    if root is not None:
        return root.root_cause, root.confidence_score, True
    working = case.working_conclusion
    if working is not None:
        return working.statement, working.confidence, False
    return None, None, False


def _mitigation(case: Case) -> tuple[Mitigation, str | None]:
    if not case.solutions:
        return Mitigation.NONE, None
    best = max(case.solutions, key=_rank)
    return _state(best), best.title


def _rank(solution: Solution) -> tuple[int, int]:
    return (list(Mitigation).index(_state(solution)), int(solution.is_mitigation))


def _state(solution: Solution) -> Mitigation:
    return Mitigation(solution.state)


def call_to_action(case: Case) -> Solution | None:
    """While impact lasts, the mitigation to apply: the newest one not applied yet, unless
    someone said "Not now" to it."""
    if case.status is not CaseStatus.INVESTIGATING or _phase(case) is not Phase.ONGOING:
        return None
    offered = (s for s in reversed(case.solutions) if s.is_mitigation and s.applied_at is None)
    return next((s for s in offered if s.deferred_by is None), None)


def owner(case: Case) -> str:
    """Who the next step falls to: the person who opened the case; for a case an alert opened,
    the first person who took part, and until someone does, the alert's responders."""
    if not case.opened_by_alert:
        return mention(case.user_id)
    people = [p for p in case.participants if p != case.user_id]
    return mention(people[0]) if people else RESPONDERS


RESPONDERS = "The alert's responders"
"""Who owns an alert's case until a person takes part (the alert is no person to mention)."""


def next_step(case: Case) -> str | None:
    """What has to happen next for the case to move, and who does it: while impact lasts, the
    mitigation first (a question about a minor hypothesis can wait)."""
    who = owner(case)
    mitigation = call_to_action(case)
    if mitigation is not None:
        return f"{who} to apply the mitigation: {mitigation.title}"
    pending = case.pending_confirmations()
    if pending:
        asked = pending[0].answerable_by[:1]
        return f"{mention(asked[0]) if asked else who} to answer the question below"
    requests = open_requests(case.evidence_requests)
    if requests:
        return f"{who} to share: {requests[0].label}"
    state, title = _mitigation(case)
    if state is Mitigation.PROPOSED:
        return f"{who} to decide on: {title}"
    if state is Mitigation.APPLIED:
        return f"{who} to check that it worked: {title}"
    if case.status is CaseStatus.CONSULTING and case.opened_by_alert:
        return f"{who} to act on the analysis below"
    if case.status is CaseStatus.CONSULTING:
        return f"{who} to say what is going wrong"
    return None


def _outcome(case: Case, mitigation: str | None) -> str | None:
    """How it ended; not when it says only what the mitigation line already does."""
    if case.status is CaseStatus.CLOSED:
        return case.closure_reason
    if case.status is not CaseStatus.RESOLVED:
        return None
    for confirmation in reversed(case.confirmations):
        payload = confirmation.payload
        accepted = confirmation.state is ConfirmationState.ACCEPTED
        if accepted and isinstance(payload, StatusChangePayload) and payload.resolution_summary:
            said = payload.resolution_summary
            return None if said == mitigation else said
    history = [t for t in case.status_history if t.to_status is CaseStatus.RESOLVED]
    return history[-1].reason if history else None


def _follow_up(case: Case) -> str | None:
    """A resolved case's permanent fix not applied yet, owned by whoever resolved the case."""
    if case.status is not CaseStatus.RESOLVED:
        return None
    later = [s for s in case.solutions if not s.is_mitigation and s.applied_at is None]
    if not later:
        return None
    resolved = [t for t in case.status_history if t.to_status is CaseStatus.RESOLVED]
    owner = resolved[-1].triggered_by if resolved else case.user_id
    return f"{later[-1].title} (owner: {mention(owner)})"
