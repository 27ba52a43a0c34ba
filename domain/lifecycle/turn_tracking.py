"""Turn recording and progress detection: compare the case before and after a turn."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime

from domain.case import Case
from domain.investigation.hypotheses import HypothesisStatus
from domain.investigation.turns import TurnOutcome, TurnProgress
from domain.lifecycle.degraded import mark_said, update_degraded_mode
from domain.lifecycle.status import CaseStatus


@dataclass(frozen=True)
class TurnSnapshot:
    """What the case held before the turn."""

    milestones: frozenset[str]
    evidence_ids: frozenset[str]
    hypothesis_status: dict[str, HypothesisStatus]
    solution_ids: frozenset[str]


@dataclass(frozen=True)
class TurnDelta:
    """What the turn added."""

    milestones_completed: list[str] = field(default_factory=list)
    evidence_added: list[str] = field(default_factory=list)
    hypotheses_generated: list[str] = field(default_factory=list)
    hypotheses_validated: list[str] = field(default_factory=list)
    solutions_proposed: list[str] = field(default_factory=list)

    @property
    def progress_made(self) -> bool:
        """Milestones completed, evidence added, or a hypothesis validated this turn."""
        return bool(self.milestones_completed or self.evidence_added or self.hypotheses_validated)


def snapshot(case: Case) -> TurnSnapshot:
    """Capture the state progress detection compares against."""
    return TurnSnapshot(
        milestones=case.progress.completed(),
        evidence_ids=frozenset(e.evidence_id for e in case.evidence),
        hypothesis_status={hid: h.status for hid, h in case.hypotheses.items()},
        solution_ids=frozenset(s.solution_id for s in case.solutions),
    )


def detect_progress(case: Case, before: TurnSnapshot) -> TurnDelta:
    """The difference between the snapshot and the case now."""
    newly_validated = [
        hid
        for hid, h in case.hypotheses.items()
        if h.status is HypothesisStatus.VALIDATED
        and before.hypothesis_status.get(hid) is not HypothesisStatus.VALIDATED
    ]
    return TurnDelta(
        milestones_completed=sorted(case.progress.completed() - before.milestones),
        evidence_added=[
            e.evidence_id for e in case.evidence if e.evidence_id not in before.evidence_ids
        ],
        hypotheses_generated=[
            hid for hid in case.hypotheses if hid not in before.hypothesis_status
        ],
        hypotheses_validated=newly_validated,
        solutions_proposed=[
            s.solution_id for s in case.solutions if s.solution_id not in before.solution_ids
        ],
    )


def derive_outcome(delta: TurnDelta) -> TurnOutcome:
    """An outcome when the model gave none."""
    if delta.milestones_completed:
        return TurnOutcome.MILESTONE_COMPLETED
    if delta.hypotheses_validated:
        return TurnOutcome.HYPOTHESIS_TESTED
    if delta.evidence_added:
        return TurnOutcome.DATA_PROVIDED
    return TurnOutcome.CONVERSATION


def record_turn(
    case: Case,
    before: TurnSnapshot,
    *,
    now: datetime,
    outcome: TurnOutcome | None = None,
    user_summary: str | None = None,
    agent_summary: str | None = None,
    actions: Iterable[str] = (),
) -> TurnProgress:
    """Record the turn, update the no-progress counter and degraded mode (noting when the
    reply says the case is stuck), advance the turn."""
    delta = detect_progress(case, before)
    turn = TurnProgress(
        turn_number=case.current_turn,
        timestamp=now,
        milestones_completed=delta.milestones_completed,
        evidence_added=delta.evidence_added,
        hypotheses_generated=delta.hypotheses_generated,
        hypotheses_validated=delta.hypotheses_validated,
        solutions_proposed=delta.solutions_proposed,
        progress_made=delta.progress_made,
        actions_taken=list(actions),
        outcome=outcome or derive_outcome(delta),
        user_message_summary=user_summary,
        agent_response_summary=agent_summary,
    )
    case.turn_history.append(turn)
    case.current_turn += 1
    if case.status is CaseStatus.CONSULTING:
        case.consulting.consultation_turns += 1
    if case.status is CaseStatus.INVESTIGATING:
        # Only an investigation can stall; questions and answers while consulting are not a stall.
        case.turns_without_progress = 0 if delta.progress_made else case.turns_without_progress + 1
    update_degraded_mode(case, now=now)
    mark_said(case, now=now)  # a turn's reply says it, with its ways out; later ones in a line
    case.updated_at = now
    return turn
