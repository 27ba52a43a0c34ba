"""Domain errors: small, named, and translated into user-facing words only at the edge."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from domain.lifecycle.responders import ResponderSet


class DomainError(Exception):
    """Base of every rule violation the core reports."""


class IllegalTransitionError(DomainError):
    """A status change the transition table does not allow."""


class TerminalCaseError(DomainError):
    """The case is resolved or closed; nothing about it may change."""


class PreconditionFailedError(DomainError):
    """A rule's precondition does not hold (e.g. the problem statement is not confirmed)."""


class UnknownConfirmationError(DomainError):
    """No pending confirmation with that id exists on the case."""


class NotAllowedToAnswerError(DomainError):
    """This person may not answer this confirmation.

    It says who may, so the edge can tell the person: the people the question names, else the
    configured ``responders``, else (neither) the case's participants, whom anyone joins by
    writing in the thread.
    """

    def __init__(
        self,
        message: str,
        *,
        named: Sequence[str] = (),
        responders: ResponderSet | None = None,
    ) -> None:
        super().__init__(message)
        self.named = tuple(named)
        self.responders = responders


class ImmutableFieldError(DomainError):
    """A field that became immutable (e.g. a confirmed problem statement) was changed."""


class VersionConflictError(DomainError):
    """Someone else saved the case first; reload and apply the change again."""


class NotFoundError(DomainError):
    """The requested case or record does not exist."""


class DuplicateCaseError(DomainError):
    """A case already exists for this Slack thread."""


class ScoringInProgressError(DomainError):
    """A scoring of this case is already pending or running."""
