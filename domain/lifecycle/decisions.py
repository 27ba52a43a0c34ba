"""Answering confirmations: who may answer, and what an answer applies (exactly once)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum

from domain.case import Case
from domain.errors import NotAllowedToAnswerError, PreconditionFailedError, UnknownConfirmationError
from domain.lifecycle.confirmations import (
    ConfirmationKind,
    ConfirmationState,
    Decision,
    PendingConfirmation,
)
from domain.lifecycle.effects import apply_effect
from domain.lifecycle.responders import ResponderSet
from domain.lifecycle.status import CaseStatusTransition
from domain.people import mention


class AnswerOutcome(StrEnum):
    """What an answer did."""

    APPLIED = "applied"
    """The decision was recorded and its effect applied."""
    ALREADY_ANSWERED = "already_answered"
    """Someone answered before; nothing changed."""
    SUPERSEDED = "superseded"
    """A newer proposal or a status change replaced this question; nothing changed."""


@dataclass(frozen=True)
class AnswerResult:
    """The outcome, the confirmation as it now stands, and any status changes made."""

    outcome: AnswerOutcome
    confirmation: PendingConfirmation
    transitions: list[CaseStatusTransition] = field(default_factory=list)


def may_answer(
    case: Case,
    confirmation: PendingConfirmation,
    user_id: str,
    *,
    responders: ResponderSet | None = None,
) -> bool:
    """Named answerers, else the configured responders, else the case's participants."""
    if confirmation.answerable_by:
        return user_id in confirmation.answerable_by
    return is_responder(case, user_id, responders=responders)


def is_responder(case: Case, user_id: str, *, responders: ResponderSet | None = None) -> bool:
    """The configured responders (an on-call group), else the case's opener and participants."""
    if responders is not None:
        return responders.includes(user_id)
    return user_id == case.user_id or user_id in case.participants


def answer(
    case: Case,
    confirmation_id: str,
    *,
    by: str,
    decision: Decision,
    now: datetime,
    responders: ResponderSet | None = None,
) -> AnswerResult:
    """Record a person's decision and apply it; repeated or stale answers change nothing.

    If a rule fails part-way, the case is restored, so it is never left half-changed.
    """
    current = case.find_confirmation(confirmation_id)
    if current is None:
        raise UnknownConfirmationError(f"no confirmation {confirmation_id} in this case")
    if current.state is ConfirmationState.SUPERSEDED:
        return AnswerResult(AnswerOutcome.SUPERSEDED, current)
    if not current.is_pending:
        return AnswerResult(AnswerOutcome.ALREADY_ANSWERED, current)
    if not may_answer(case, current, by, responders=responders):
        raise NotAllowedToAnswerError(
            f"{mention(by)} may not answer this question",
            named=current.answerable_by,
            responders=responders,
        )
    if decision is Decision.UNSURE and current.kind is not ConfirmationKind.REFUTATION:
        raise PreconditionFailedError("only a refutation can be answered with 'not sure'")

    backup = case.model_copy(deep=True)
    try:
        transitions = _apply(case, current, by=by, decision=decision, now=now)
    except Exception:
        _restore(case, backup)
        raise
    return AnswerResult(AnswerOutcome.APPLIED, current, transitions)


def _apply(
    case: Case, confirmation: PendingConfirmation, *, by: str, decision: Decision, now: datetime
) -> list[CaseStatusTransition]:
    accepted = _applies(confirmation, decision)
    confirmation.state = ConfirmationState.ACCEPTED if accepted else ConfirmationState.REJECTED
    confirmation.decision = decision
    confirmation.answered_by = by
    confirmation.answered_at = now
    history_before = len(case.status_history)
    apply_effect(case, confirmation, decision=decision, by=by, now=now)
    case.updated_at = now
    return list(case.status_history[history_before:])


def _applies(confirmation: PendingConfirmation, decision: Decision) -> bool:
    """Yes accepts; for a path choice, No accepts the alternate path."""
    return decision is Decision.YES or confirmation.kind is ConfirmationKind.PATH_CHOICE


def _restore(case: Case, backup: Case) -> None:
    """Undo a partly applied effect: the case goes back to how it was before the answer."""
    for name in type(case).model_fields:
        object.__setattr__(case, name, getattr(backup, name))
