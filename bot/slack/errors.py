"""Errors the Slack edge says to people: short and friendly; everything else gets a reference.

Domain errors are translated here and only here (listeners' `@app.error` and the worker both use
`user_message`); exception text never reaches Slack.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence

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
from domain.lifecycle.responders import ResponderSet, ResponderSource

TRANSIENT_SLACK_ERRORS = frozenset(
    {"ratelimited", "internal_error", "service_unavailable", "fatal_error", "request_timeout"}
)


class BotError(Exception):
    """An edge failure whose message is written for people (safe to show as is)."""


class DownloadRefusedError(BotError):
    """A shared file that may not or could not be downloaded."""


FRIENDLY: dict[type[Exception], str] = {
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


GROUP_ROLES = {ResponderSource.ALERT_GROUP: " (the alert's responders)"}
"""Said after a group's name when the name alone does not say why its members may."""


def new_reference() -> str:
    """A short correlation id that links what a person saw to the log entry."""
    return uuid.uuid4().hex[:8]


def user_message(error: BaseException, *, reference: str) -> str:
    """What to tell people about ``error``: a friendly sentence, or the reference to report."""
    if isinstance(error, BotError):
        return str(error)
    if isinstance(error, NotAllowedToAnswerError):
        return refusal(named=error.named, responders=error.responders)
    for kind, sentence in FRIENDLY.items():
        if isinstance(error, kind):
            return sentence
    if isinstance(error, DomainError):
        return "That can't be done in this case right now."
    return (
        "Something went wrong on my side and I couldn't finish that. "
        f"If it keeps happening, give this reference to your admin: `{reference}`."
    )


def refusal(
    *, named: Sequence[str] = (), responders: ResponderSet | None = None, deciding: bool = False
) -> str:
    """Who may answer a question (or, ``deciding``, a workflow), and how to join them if one can."""
    act = "approve or reject this workflow" if deciding else "answer this question"
    if named:
        return f"Only {_people(named)} can {act}."
    if responders is None:
        return (
            f"Only the people working on this case can {act}: "
            "write in this thread to join it, then click again."
        )
    return _responders_only(responders, act)


def _responders_only(responders: ResponderSet, act: str) -> str:
    if responders.source is ResponderSource.ALERT_CHANNEL and responders.channel:
        return (
            f"Only members of <#{responders.channel}>, where the alert was posted, can {act}: "
            "join the channel, then click again."
        )
    if responders.group:
        role = GROUP_ROLES.get(responders.source, "")
        return f"Only members of <!subteam^{responders.group}>{role} can {act}."
    return f"Only the case's responders can {act}."


def _people(user_ids: Sequence[str]) -> str:
    """The people named in a sentence: <@U1>; <@U1> or <@U2>; <@U1>, <@U2> or <@U3>."""
    mentions = [f"<@{user_id}>" for user_id in user_ids]
    if len(mentions) == 1:
        return mentions[0]
    return f"{', '.join(mentions[:-1])} or {mentions[-1]}"


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
