"""Pending confirmations: every consequential change is proposed, then applied by a person."""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Literal

from pydantic import AwareDatetime, Field

from domain.base import DomainModel, new_id, utc_now
from domain.investigation.verification import InvestigationPath
from domain.lifecycle.special_states import DocumentType
from domain.lifecycle.status import CaseStatus, ClosureReason


class ConfirmationKind(StrEnum):
    """What a confirmation would change."""

    STATUS_CHANGE = "status_change"
    PROBLEM_STATEMENT = "problem_statement"
    PATH_CHOICE = "path_choice"
    REFUTATION = "refutation"
    SOLUTION_APPLIED = "solution_applied"
    SOLUTION_VERIFIED = "solution_verified"
    DELIVERABLES = "deliverables"


class ConfirmationState(StrEnum):
    """A confirmation is answered once, or superseded by a newer proposal or a status change.

    A solution step a person recorded (applied, verified) can be taken back (Undo) while nothing
    later depends on it: it is then UNDONE, and its effect reverted.
    """

    PENDING = "pending"
    ACCEPTED = "accepted"
    REJECTED = "rejected"
    SUPERSEDED = "superseded"
    UNDONE = "undone"


class Decision(StrEnum):
    """A person's answer. UNSURE exists only for refutations ('I need to verify this')."""

    YES = "yes"
    NO = "no"
    UNSURE = "unsure"


class StatusChangePayload(DomainModel):
    """Move the case to another status."""

    kind: Literal[ConfirmationKind.STATUS_CHANGE] = ConfirmationKind.STATUS_CHANGE
    to_status: CaseStatus
    closure_reason: ClosureReason | None = None
    reason: str = ""
    resolution_summary: str | None = None
    """For RESOLVED without a verified solution: what the person did; it is recorded as the fix."""


class ProblemStatementPayload(DomainModel):
    """Confirm the formalised problem statement (and, optionally, start investigating)."""

    kind: Literal[ConfirmationKind.PROBLEM_STATEMENT] = ConfirmationKind.PROBLEM_STATEMENT
    statement: str = Field(min_length=1, max_length=1000)
    and_investigate: bool = True


class PathChoicePayload(DomainModel):
    """Yes takes ``path``, No takes ``alternate``."""

    kind: Literal[ConfirmationKind.PATH_CHOICE] = ConfirmationKind.PATH_CHOICE
    path: InvestigationPath
    alternate: InvestigationPath


class RefutationPayload(DomainModel):
    """Evidence contradicts hypotheses: yes refutes them, no disputes the evidence."""

    kind: Literal[ConfirmationKind.REFUTATION] = ConfirmationKind.REFUTATION
    hypothesis_ids: list[str] = Field(min_length=1)
    evidence_id: str
    explanation: str = ""


class SolutionAppliedPayload(DomainModel):
    """A person applied this solution (or mitigation)."""

    kind: Literal[ConfirmationKind.SOLUTION_APPLIED] = ConfirmationKind.SOLUTION_APPLIED
    solution_id: str


class SolutionVerifiedPayload(DomainModel):
    """The solution worked; a verified permanent fix resolves the case."""

    kind: Literal[ConfirmationKind.SOLUTION_VERIFIED] = ConfirmationKind.SOLUTION_VERIFIED
    solution_id: str
    evidence_id: str | None = None


class DeliverablesPayload(DomainModel):
    """Offer a case report and/or a runbook."""

    kind: Literal[ConfirmationKind.DELIVERABLES] = ConfirmationKind.DELIVERABLES
    documents: list[DocumentType] = Field(min_length=1)


ConfirmationPayload = Annotated[
    StatusChangePayload
    | ProblemStatementPayload
    | PathChoicePayload
    | RefutationPayload
    | SolutionAppliedPayload
    | SolutionVerifiedPayload
    | DeliverablesPayload,
    Field(discriminator="kind"),
]


class PendingConfirmation(DomainModel):
    """A proposed change awaiting a person's Yes or No."""

    confirmation_id: str = Field(default_factory=lambda: new_id("cf"))
    payload: ConfirmationPayload
    prompt: str = ""
    """The question shown to people."""
    answerable_by: list[str] = Field(default_factory=list)
    """User ids who may answer; empty means any participant of the case."""
    state: ConfirmationState = ConfirmationState.PENDING
    proposed_at: AwareDatetime = Field(default_factory=utc_now)
    proposed_by: str = "agent"
    proposed_at_turn: int = Field(default=0, ge=0)
    answered_at: AwareDatetime | None = None
    answered_by: str | None = None
    decision: Decision | None = None
    undone_by: str | None = None
    """Who took the answer back (Undo), once it is UNDONE."""

    @property
    def kind(self) -> ConfirmationKind:
        """The kind, taken from the payload."""
        return self.payload.kind

    @property
    def is_pending(self) -> bool:
        """Not answered or superseded yet."""
        return self.state is ConfirmationState.PENDING

    @property
    def supersede_key(self) -> str:
        """Proposals with the same key replace each other (one pending question per subject)."""
        payload = self.payload
        if isinstance(payload, SolutionAppliedPayload | SolutionVerifiedPayload):
            return f"{payload.kind}:{payload.solution_id}"
        if isinstance(payload, RefutationPayload):
            return f"{payload.kind}:{payload.evidence_id}"
        return str(payload.kind)
