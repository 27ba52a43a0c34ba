"""Errors the Slack edge says to people: short and friendly; everything else gets a reference.

Domain errors are translated here and only here (listeners' `@app.error` and the worker both use
`user_message`); exception text never reaches Slack.
"""

from __future__ import annotations

import uuid

import aiohttp
from slack_sdk.errors import SlackApiError

from bot.slack.ids import InvalidValueError
from domain.errors import (
    DomainError,
    DuplicateCaseError,
    IllegalTransitionError,
    ImmutableFieldError,
    NotAllowedToAnswerError,
    NotFoundError,
    PreconditionFailedError,
    ScoringInProgressError,
    TerminalCaseError,
    UnknownConfirmationError,
    VersionConflictError,
)

TRANSIENT_SLACK_ERRORS = frozenset(
    {"ratelimited", "internal_error", "service_unavailable", "fatal_error", "request_timeout"}
)


class BotError(Exception):
    """An edge failure whose message is written for people (safe to show as is)."""


class DownloadRefusedError(BotError):
    """A shared file that may not or could not be downloaded."""


FRIENDLY: dict[type[Exception], str] = {
    NotAllowedToAnswerError: "Only the people working on this case can answer that question.",
    UnknownConfirmationError: "That question no longer exists in this case.",
    TerminalCaseError: "This case is finished (resolved or closed), so it can't change any more.",
    IllegalTransitionError: "The case can't move to that status from where it is now.",
    PreconditionFailedError: "That can't be done yet in this case.",
    ImmutableFieldError: "That was already confirmed and can't change.",
    NotFoundError: "I couldn't find that case.",
    DuplicateCaseError: "This thread is already a case.",
    VersionConflictError: "Someone changed the case at the same time; please try again.",
    ScoringInProgressError: "A scoring of this case is already running.",
    InvalidValueError: "That button is not one of mine (or it is out of date).",
}


def new_reference() -> str:
    """A short correlation id that links what a person saw to the log entry."""
    return uuid.uuid4().hex[:8]


def user_message(error: BaseException, *, reference: str) -> str:
    """What to tell people about ``error``: a friendly sentence, or the reference to report."""
    if isinstance(error, BotError):
        return str(error)
    for kind, sentence in FRIENDLY.items():
        if isinstance(error, kind):
            return sentence
    if isinstance(error, DomainError):
        return "That can't be done in this case right now."
    return (
        "Something went wrong on my side and I couldn't finish that. "
        f"If it keeps happening, give this reference to your admin: `{reference}`."
    )


def is_expected(error: BaseException) -> bool:
    """Errors that are part of normal use (logged briefly, no stack trace)."""
    return isinstance(error, BotError | DomainError | InvalidValueError)


def is_transient(error: BaseException) -> bool:
    """Whether trying again later can succeed (Slack down or busy, network trouble)."""
    if isinstance(error, SlackApiError):
        status = getattr(error.response, "status_code", 200)
        return (
            status >= 500 or status == 429 or error.response.get("error") in TRANSIENT_SLACK_ERRORS
        )
    return isinstance(error, aiohttp.ClientError | TimeoutError | ConnectionError)
