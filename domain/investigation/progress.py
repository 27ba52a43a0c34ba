"""Milestone-based investigation progress: what has been completed, never where we "are"."""

from __future__ import annotations

from enum import StrEnum

from pydantic import Field

from domain.base import DomainModel

VERIFICATION_MILESTONES: tuple[str, ...] = (
    "symptom_verified",
    "scope_assessed",
    "timeline_established",
    "changes_identified",
)

MILESTONES: tuple[str, ...] = (
    *VERIFICATION_MILESTONES,
    "root_cause_identified",
    "solution_proposed",
    "solution_applied",
    "solution_verified",
    "mitigation_applied",
)


class InvestigationStage(StrEnum):
    """The four investigation stages; computed from milestones, never stored."""

    SYMPTOM_VERIFICATION = "symptom_verification"
    HYPOTHESIS_FORMULATION = "hypothesis_formulation"
    HYPOTHESIS_VALIDATION = "hypothesis_validation"
    SOLUTION = "solution"


class StageFocus(StrEnum):
    """Coarse focus used to adapt the investigating prompt (understanding/diagnosing/resolving)."""

    UNDERSTANDING = "understanding"
    DIAGNOSING = "diagnosing"
    RESOLVING = "resolving"


STAGE_FOCUS: dict[InvestigationStage, StageFocus] = {
    InvestigationStage.SYMPTOM_VERIFICATION: StageFocus.UNDERSTANDING,
    InvestigationStage.HYPOTHESIS_FORMULATION: StageFocus.DIAGNOSING,
    InvestigationStage.HYPOTHESIS_VALIDATION: StageFocus.DIAGNOSING,
    InvestigationStage.SOLUTION: StageFocus.RESOLVING,
}


class InvestigationProgress(DomainModel):
    """Milestones completed so far. Booleans only ever move from False to True, except the human
    ones (applied, verified) when a person takes their word back (Undo)."""

    symptom_verified: bool = False
    """Symptom confirmed with evidence."""
    scope_assessed: bool = False
    """Scope determined (affected users, services, regions)."""
    timeline_established: bool = False
    """Timeline determined (when it started, when it was noticed)."""
    changes_identified: bool = False
    """Recent changes identified."""
    root_cause_identified: bool = False
    """Root cause determined."""
    root_cause_confidence: float = Field(default=0.0, ge=0.0, le=1.0)
    """Confidence in the root cause (0.0-1.0)."""
    root_cause_method: str | None = None
    """direct_analysis | hypothesis_validation | correlation | other."""
    solution_proposed: bool = False
    """A solution or mitigation has been proposed."""
    solution_applied: bool = False
    """The (permanent) solution has been applied."""
    solution_verified: bool = False
    """The solution's effectiveness has been verified."""
    mitigation_applied: bool = False
    """Mitigation-first path: a quick mitigation was applied; RCA continues afterwards."""

    @property
    def verification_complete(self) -> bool:
        """All four verification milestones are completed."""
        return all(getattr(self, name) for name in VERIFICATION_MILESTONES)

    @property
    def completion_percentage(self) -> float:
        """Share of the nine milestones completed, 0.0-1.0."""
        return sum(bool(getattr(self, name)) for name in MILESTONES) / len(MILESTONES)

    def completed(self) -> frozenset[str]:
        """Names of the milestones completed."""
        return frozenset(name for name in MILESTONES if getattr(self, name))


def compute_stage(
    progress: InvestigationProgress, *, mitigation_first: bool, has_hypotheses: bool
) -> InvestigationStage:
    """Derive the stage: 1-2-3-4 for root cause, 1-4-2-3-4 for mitigation first."""
    if not progress.symptom_verified:
        return InvestigationStage.SYMPTOM_VERIFICATION
    if mitigation_first and not progress.mitigation_applied and not progress.root_cause_identified:
        return InvestigationStage.SOLUTION
    if progress.root_cause_identified or progress.solution_applied or progress.solution_verified:
        return InvestigationStage.SOLUTION
    if has_hypotheses:
        return InvestigationStage.HYPOTHESIS_VALIDATION
    return InvestigationStage.HYPOTHESIS_FORMULATION


class MilestoneUpdates(DomainModel):
    """Milestones the model may report as completed this turn (True only; never False)."""

    symptom_verified: bool | None = None
    scope_assessed: bool | None = None
    timeline_established: bool | None = None
    changes_identified: bool | None = None
    root_cause_identified: bool | None = None
    root_cause_confidence: float | None = Field(default=None, ge=0.0, le=1.0)
    root_cause_method: str | None = None
    solution_proposed: bool | None = None
    solution_applied: bool | None = None
    solution_verified: bool | None = None
    mitigation_applied: bool | None = None


def advance_milestones(
    progress: InvestigationProgress,
    updates: MilestoneUpdates,
    *,
    only: frozenset[str] | None = None,
) -> list[str]:
    """Apply milestone updates forward-only; return the milestones newly completed.

    A False or missing value never un-completes anything. ``only`` restricts which milestones
    may be set (the turn loop withholds human-action milestones until a person confirms them).
    """
    newly: list[str] = []
    for name in MILESTONES:
        allowed = only is None or name in only
        if allowed and getattr(updates, name) is True and not getattr(progress, name):
            setattr(progress, name, True)
            newly.append(name)
    if updates.root_cause_confidence is not None:
        progress.root_cause_confidence = updates.root_cause_confidence
    if updates.root_cause_method is not None:
        progress.root_cause_method = updates.root_cause_method
    return newly
