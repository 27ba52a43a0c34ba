"""Slack JSON parsed into typed work at the edge: events, clicks, shortcuts, commands, views.

The listeners parse what Slack sends into the queue's payloads (`bot.inbox.work`) before they
record it; a file Slack describes becomes a file ref as `bot.slack.files` reads it.
"""

from __future__ import annotations

import re
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from bot.inbox.work import (
    ClickWork,
    CommandWork,
    KbAddWork,
    OpenCaseWork,
    ScoreRequestWork,
    SlackFileRef,
    ThreadMessage,
    ThreadRef,
)
from bot.slack.files import file_ref
from bot.slack.ids import (
    ActionId,
    CorrectionInput,
    CorrectionMetadata,
    KbAddMetadata,
    KbInput,
    load_value,
)

Json = dict[str, Any]
# Human messages: plain ones, file shares and thread replies also sent to the channel.
TURN_SUBTYPES = frozenset({None, "file_share", "thread_broadcast"})
KB_TITLE_MAX = 200


class IncomingMessage(BaseModel):
    """A human's message in a channel, as the message listener sees it."""

    model_config = ConfigDict(frozen=True)

    event_id: str
    team_id: str
    channel_id: str
    ts: str
    thread_ts: str | None = None
    user: str
    text: str = ""
    files: list[SlackFileRef] = Field(default_factory=list)
    mentions_bot: bool = False

    @property
    def thread(self) -> ThreadRef:
        """The thread this message belongs to (its own, when it is top level)."""
        return ThreadRef(
            team_id=self.team_id, channel_id=self.channel_id, thread_ts=self.thread_ts or self.ts
        )

    @property
    def is_reply(self) -> bool:
        """Written inside a thread."""
        return self.thread_ts is not None and self.thread_ts != self.ts

    def as_thread_message(self) -> ThreadMessage:
        """What the case keeps of it."""
        return ThreadMessage(ts=self.ts, author=self.user, text=self.text, files=self.files)


def parse_message(body: Json, *, bot_user_id: str | None) -> IncomingMessage | None:
    """A human's message, or None for bots (ours and others), edits, deletions and the like."""
    event: Json = body.get("event") or {}
    user = event.get("user")
    if event.get("bot_id") or event.get("subtype") not in TURN_SUBTYPES or not user:
        return None
    if user == bot_user_id:
        return None
    text = str(event.get("text") or "")
    mention = f"<@{bot_user_id}>" if bot_user_id else None
    return IncomingMessage(
        event_id=str(body.get("event_id") or f"{event.get('channel')}:{event.get('ts')}"),
        team_id=str(body.get("team_id") or event.get("team") or ""),
        channel_id=str(event.get("channel") or ""),
        ts=str(event["ts"]),
        thread_ts=event.get("thread_ts"),
        user=str(user),
        text=strip_mention(text, bot_user_id),
        files=files_of(event),
        mentions_bot=bool(mention and mention in text),
    )


def strip_mention(text: str, bot_user_id: str | None) -> str:
    """The text without the bot's mention."""
    if not bot_user_id:
        return text.strip()
    return re.sub(rf"<@{re.escape(bot_user_id)}>\s*", "", text).strip()


def files_of(message: Json) -> list[SlackFileRef]:
    """Files shared with a message (only what Slack described; nothing downloaded).

    A Slack Connect channel's event may only name a file (``"file_access": "check_file_info"``):
    its ref has no download link, and the upload service asks `files.info` for the rest.
    """
    return [
        file_ref(file)
        for file in message.get("files") or []
        if isinstance(file, dict) and file.get("id")
    ]


def parse_click(body: Json) -> tuple[ClickWork, str]:
    """The first action of a block_actions payload, and its dedup key (action id + action ts)."""
    action: Json = body["actions"][0]
    container: Json = body.get("container") or {}
    message: Json = body.get("message") or {}
    channel = container.get("channel_id") or (body.get("channel") or {}).get("id") or ""
    work = ClickWork(
        team_id=_team(body),
        channel_id=str(channel),
        thread_ts=container.get("thread_ts") or message.get("thread_ts"),
        message_ts=container.get("message_ts") or message.get("ts"),
        user_id=str(body["user"]["id"]),
        action_id=str(action["action_id"]),
        value=str(action.get("value") or ""),
    )
    return work, f"action:{action['action_id']}:{action.get('action_ts', '')}"


def parse_investigate(body: Json) -> tuple[OpenCaseWork, str]:
    """The Investigate shortcut: a case on the message's thread, the message as first evidence."""
    message: Json = body["message"]
    thread = ThreadRef(
        team_id=_team(body), channel_id=str(body["channel"]["id"]), thread_ts=_thread_of(message)
    )
    author = message.get("user") or message.get("bot_id") or "unknown"
    first = ThreadMessage(
        ts=str(message["ts"]),
        author=str(author),
        text=str(message.get("text") or ""),
        files=files_of(message),
    )
    work = OpenCaseWork(
        thread=thread, opened_by=str(body["user"]["id"]), source="shortcut", message=first
    )
    return work, _shortcut_key(body)


def _thread_of(message: Json) -> str:
    """The thread a message shortcut was used in (the message's own, if it starts none)."""
    return str(message.get("thread_ts") or message["ts"])


def _shortcut_key(body: Json) -> str:
    """One use of a message shortcut (Slack redelivers it with the same action_ts)."""
    key = body.get("action_ts") or body.get("trigger_id")
    return f"shortcut:{body.get('callback_id')}:{key}"


def parse_score_shortcut(body: Json) -> tuple[ScoreRequestWork, str]:
    """The Score investigation shortcut: the thread of the message it was used on."""
    message: Json = body["message"]
    work = ScoreRequestWork(
        team_id=_team(body),
        channel_id=str(body["channel"]["id"]),
        thread_ts=_thread_of(message),
        user_id=str(body["user"]["id"]),
        response_url=body.get("response_url") or None,
    )
    return work, _shortcut_key(body)


def parse_status_shortcut(body: Json) -> tuple[CommandWork, str]:
    """The Case status shortcut: `/fm status` for the thread of the message it was used on
    (Slack runs no slash command inside a thread)."""
    work = CommandWork(
        team_id=_team(body),
        channel_id=str(body["channel"]["id"]),
        user_id=str(body["user"]["id"]),
        text="status",
        thread_ts=_thread_of(body["message"]),
    )
    return work, _shortcut_key(body)


def parse_command(command: Json) -> tuple[CommandWork, str]:
    """A slash command form, and its dedup key (the trigger id)."""
    work = CommandWork(
        team_id=str(command.get("team_id") or ""),
        channel_id=str(command.get("channel_id") or ""),
        user_id=str(command.get("user_id") or ""),
        text=str(command.get("text") or ""),
        response_url=command.get("response_url") or None,
    )
    return work, f"command:{command.get('trigger_id')}"


def parse_kb_add(body: Json) -> tuple[KbAddWork, str, dict[str, str]]:
    """The `kb add` modal: the runbook, its dedup key, and errors to show in the form."""
    view: Json = body["view"]
    values: Json = (view.get("state") or {}).get("values") or {}
    title = _input_value(values, KbInput.TITLE).strip()
    text = _input_value(values, KbInput.BODY).strip()
    errors = {}
    if not title:
        errors[KbInput.TITLE.value] = "Give the runbook a title."
    elif len(title) > KB_TITLE_MAX:
        errors[KbInput.TITLE.value] = f"At most {KB_TITLE_MAX} characters."
    if not text:
        errors[KbInput.BODY.value] = "Write the runbook's steps."
    metadata = load_value(KbAddMetadata, view.get("private_metadata") or "{}")
    work = KbAddWork(
        team_id=_team(body),
        user_id=str(body["user"]["id"]),
        channel_id=metadata.channel_id,
        title=title or "untitled",
        body=text,
    )
    return work, f"view:{view.get('id')}:{view.get('hash')}", errors


def parse_correction(body: Json) -> tuple[ClickWork, str, dict[str, str]]:
    """The problem statement correction form: a No with the person's words, its dedup key, and
    errors to show in the form (nothing written, or the statement left as it was)."""
    view: Json = body["view"]
    values: Json = (view.get("state") or {}).get("values") or {}
    text = _input_value(values, CorrectionInput.STATEMENT).strip()
    errors = {}
    if not text:
        errors[CorrectionInput.STATEMENT.value] = "Say what is going wrong."
    elif text == _initial_value(view, CorrectionInput.STATEMENT).strip():
        errors[CorrectionInput.STATEMENT.value] = (
            "That is the statement as it stands: change what is wrong, or Cancel."
        )
    metadata = load_value(CorrectionMetadata, view.get("private_metadata"))
    work = ClickWork(
        team_id=_team(body),
        channel_id=metadata.channel_id,
        thread_ts=metadata.thread_ts,
        message_ts=metadata.message_ts,
        user_id=str(body["user"]["id"]),
        action_id=ActionId.CORRECT.value,
        value=metadata.answer().dump(),
        text=text,
    )
    return work, f"view:{view.get('id')}:{view.get('hash')}", errors


def _initial_value(view: Json, name: CorrectionInput) -> str:
    """What an input of the form was filled with when it opened."""
    for block in view.get("blocks") or []:
        element: Json = block.get("element") or {}
        if block.get("block_id") == name.value and element.get("action_id") == name.value:
            return str(element.get("initial_value") or "")
    return ""


def _input_value(values: Json, name: KbInput | CorrectionInput) -> str:
    field = (values.get(name.value) or {}).get(name.value) or {}
    return str(field.get("value") or "")


def _team(body: Json) -> str:
    user: Json = body.get("user") or {}
    team: Json = body.get("team") or {}
    return str(team.get("id") or user.get("team_id") or body.get("team_id") or "")
