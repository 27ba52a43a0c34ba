"""Work recorded in the durable inbox by the listeners, typed: one model per kind of item."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Literal, TypeVar

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field

from domain.queue import InboxItem
from domain.workflows.signals import SignalGroup, SignalStatus


class WorkKind(StrEnum):
    """Kinds of inbox items (the item's `kind` column)."""

    OPEN_CASE = "open_case"
    MESSAGE = "message"
    CLICK = "click"
    COMMAND = "command"
    KB_ADD = "kb_add"
    HOME = "home"
    SCORE_REQUEST = "score_request"
    SCORE_RUN = "score_run"
    ALERT = "alert"
    RCA = "rca"


TURN_KINDS = frozenset({WorkKind.MESSAGE})
"""Kinds whose consecutive items of one case are coalesced into a single turn."""


class Work(BaseModel):
    """Base of the payload models."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class ThreadRef(Work):
    """A Slack thread: the identity of a case."""

    team_id: str
    channel_id: str
    thread_ts: str

    @property
    def key(self) -> str:
        """The inbox case key: items of one thread are processed one at a time, in order."""
        return f"{self.team_id}:{self.channel_id}:{self.thread_ts}"


class SlackFileRef(Work):
    """A file shared in a message, as Slack described it (nothing downloaded yet)."""

    file_id: str
    name: str
    size: int = Field(ge=0)
    mimetype: str = "text/plain"
    download_url: str | None = None


class ThreadMessage(Work):
    """One message of a thread: who wrote what, and the files shared with it."""

    ts: str
    author: str
    text: str = ""
    files: list[SlackFileRef] = Field(default_factory=list)


class OpenCaseWork(Work):
    """Open a case on a thread (a mention, the Investigate shortcut or the console)."""

    thread: ThreadRef
    opened_by: str
    source: Literal["mention", "shortcut", "console"]
    message: ThreadMessage
    """The first evidence: the mention itself, or the message the shortcut was used on."""


class MessageWork(Work):
    """A person wrote (or shared files) in a case thread."""

    thread: ThreadRef
    message: ThreadMessage


class ClickWork(Work):
    """A button click."""

    team_id: str
    channel_id: str
    thread_ts: str | None = None
    message_ts: str | None = None
    user_id: str
    action_id: str
    value: str = ""
    text: str = ""
    """What the person wrote with the click: the correction typed into the form No opened."""


class CommandWork(Work):
    """A `/fm` command (or the Case status shortcut, which asks `status` from a thread)."""

    team_id: str
    channel_id: str
    user_id: str
    text: str = ""
    response_url: str | None = None
    thread_ts: str | None = None
    """The thread it was asked from: Slack runs no slash command in a thread, so only the
    Case status shortcut gives one."""


class KbAddWork(Work):
    """A personal runbook submitted through the `kb add` modal."""

    team_id: str
    user_id: str
    channel_id: str | None = None
    title: str
    body: str


class HomeWork(Work):
    """Someone opened the App Home."""

    team_id: str
    user_id: str


class ScoreRequestWork(Work):
    """The Score investigation shortcut, used on a message of a (case) thread."""

    team_id: str
    channel_id: str
    thread_ts: str
    user_id: str
    response_url: str | None = None

    @property
    def thread(self) -> ThreadRef:
        """The thread the shortcut was used in."""
        return ThreadRef(team_id=self.team_id, channel_id=self.channel_id, thread_ts=self.thread_ts)


class ScoreRunWork(Work):
    """Run the judge for one scoring (recorded when the scoring is requested)."""

    team_id: str
    score_id: str


class AlertWork(Work):
    """A monitoring system's notification, accepted by the alert endpoint."""

    group: SignalGroup
    received_at: AwareDatetime
    counted: bool = False
    """An earlier try already counted this notification against its group."""
    previous_status: SignalStatus | None = None
    """The group's status before this notification (kept for a retry)."""
    new_fingerprints: list[str] = Field(default_factory=list)
    """Alerts this notification added to the group (kept for a retry)."""


class RcaWork(Work):
    """Analyse the alert that opened a case and offer remediation workflows, in its thread."""

    thread: ThreadRef
    case_id: str
    waits: int = Field(default=0, ge=0)
    """How many times it already waited for a free investigation slot (its thread said so once)."""


PAYLOADS: dict[WorkKind, type[Work]] = {
    WorkKind.OPEN_CASE: OpenCaseWork,
    WorkKind.MESSAGE: MessageWork,
    WorkKind.CLICK: ClickWork,
    WorkKind.COMMAND: CommandWork,
    WorkKind.KB_ADD: KbAddWork,
    WorkKind.HOME: HomeWork,
    WorkKind.SCORE_REQUEST: ScoreRequestWork,
    WorkKind.SCORE_RUN: ScoreRunWork,
    WorkKind.ALERT: AlertWork,
    WorkKind.RCA: RcaWork,
}
KIND_OF: dict[type[Work], WorkKind] = {model: kind for kind, model in PAYLOADS.items()}
WorkT = TypeVar("WorkT", bound=Work)


def to_item(
    work: Work,
    *,
    dedup_key: str,
    team_id: str,
    case_key: str | None,
    available_at: datetime | None = None,
) -> InboxItem:
    """An inbox item carrying ``work`` (to be taken no earlier than ``available_at``)."""
    item = InboxItem(
        dedup_key=dedup_key,
        team_id=team_id,
        case_key=case_key,
        kind=KIND_OF[type(work)].value,
        payload=work.model_dump(mode="json"),
    )
    if available_at is not None:
        item = item.model_copy(update={"available_at": available_at})
    return item


def load_work(item: InboxItem) -> Work:
    """The typed payload of an item (ValueError for an unknown kind)."""
    model = PAYLOADS[WorkKind(item.kind)]
    return model.model_validate(item.payload)


def payload_as(item: InboxItem, model: type[WorkT]) -> WorkT:
    """The payload of an item known to be of ``model``'s kind."""
    return model.model_validate(item.payload)
