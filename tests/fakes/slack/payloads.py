"""Requests as Slack sends them: the real samples in `tests/data/slack/`, copied and overridden.

Events are JSON `event_callback` envelopes, interactivity is a form with `payload=<json>`, slash
commands are forms; each `SlackRequest` can be POSTed signed to `/slack/events` or pushed over
Socket Mode (`FakeSocketMode.send_request`).
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl, urlencode

from tests.fakes.slack.samples import (
    load_sample,
    load_text_sample,
    new_id,
    new_trigger_id,
    next_ts,
)
from tests.fakes.slack.signing import sign
from tests.fakes.slack.state import APP_ID, BOT_USER_ID, TEAM_ID

JsonDict = dict[str, Any]
ResponseUrl = Callable[[str | None, str | None], str]

JSON = "application/json"
FORM = "application/x-www-form-urlencoded"


@dataclass(frozen=True)
class SlackRequest:
    """One request from Slack: the HTTP body and the payload Socket Mode would carry."""

    body: bytes
    content_type: str
    payload: JsonDict
    envelope_type: str  # events_api | interactive | slash_commands

    def headers(
        self, signing_secret: str, *, timestamp: int | None = None, retry_num: int | None = None
    ) -> dict[str, str]:
        """Content type and Slack's signature headers (plus redelivery headers when retrying)."""
        headers = {"Content-Type": self.content_type, **sign(self.body, signing_secret, timestamp)}
        if retry_num is not None:
            headers["X-Slack-Retry-Num"] = str(retry_num)
            headers["X-Slack-Retry-Reason"] = "http_timeout"
        return headers


def _offline_response_url(channel: str | None, message_ts: str | None) -> str:
    # Nothing listens on port 9 locally: a test that forgot to bind a fake fails loudly, offline.
    return f"http://127.0.0.1:9/hooks/{new_id('R')}"


def _rich_text(text: str, block_id: str) -> list[JsonDict]:
    section = {"type": "rich_text_section", "elements": [{"type": "text", "text": text}]}
    return [{"type": "rich_text", "block_id": block_id, "elements": [section]}]


def _override_event(event: JsonDict, fields: dict[str, Any]) -> None:
    if "blocks" in event and isinstance(fields.get("text"), str):
        event["blocks"] = _rich_text(fields["text"], event["blocks"][0].get("block_id", "b1"))
    if fields.get("ts"):
        fields.setdefault("event_ts", fields["ts"])
    for key, value in fields.items():
        if value is None:
            event.pop(key, None)
        else:
            event[key] = value
    if "client_msg_id" in event:
        event["client_msg_id"] = str(uuid.uuid4())


def _event_request(data: JsonDict) -> SlackRequest:
    return SlackRequest(json.dumps(data).encode(), JSON, data, "events_api")


def _interactive_request(payload: JsonDict) -> SlackRequest:
    body = urlencode({"payload": json.dumps(payload)}).encode()
    return SlackRequest(body, FORM, payload, "interactive")


@dataclass
class SlackPayloads:
    """Builders for one workspace; `FakeSlack.payloads` binds them to the fake's response URLs."""

    team_id: str = TEAM_ID
    bot_user_id: str = BOT_USER_ID
    app_id: str = APP_ID
    response_url: ResponseUrl = field(default=_offline_response_url)

    # ------------------------------------------------------------------ events
    def event(
        self, sample: str, *, event_id: str | None = None, **event_fields: Any
    ) -> SlackRequest:
        """Any sample under `events/`, its `event` fields overridden (None drops a field)."""
        data = load_sample(f"events/{sample}.json")
        event = data.get("event", {})
        for key in ("team", "user_team"):
            if key in event:
                event[key] = self.team_id
        _override_event(event, event_fields)
        data.update(team_id=self.team_id, api_app_id=self.app_id)
        if "event_id" in data:
            data["event_id"] = event_id or new_id("Ev")
            data["event_time"] = int(float(event.get("event_ts") or next_ts()))
        for authorization in data.get("authorizations", []):
            authorization.update(team_id=self.team_id, user_id=self.bot_user_id)
        if "authed_users" in data:
            data["authed_users"] = [self.bot_user_id]
        return _event_request(data)

    def app_mention(
        self, text: str | None = None, *, channel: str = "C111", user: str = "W222", **fields: Any
    ) -> SlackRequest:
        """A top-level (or, with `thread_ts`, threaded) message mentioning the bot."""
        text = text if text is not None else f"<@{self.bot_user_id}> Hi there!"
        ts = fields.pop("ts", None) or next_ts()
        return self.event("app_mention", text=text, channel=channel, user=user, ts=ts, **fields)

    def message(
        self,
        text: str = "Hello World!",
        *,
        channel: str = "C111",
        user: str = "W222",
        thread_ts: str | None = None,
        **fields: Any,
    ) -> SlackRequest:
        """A human's message; with `thread_ts` it is a reply in that thread."""
        ts = fields.pop("ts", None) or next_ts()
        if thread_ts is None:
            return self.event(
                "message_channel_plain", text=text, channel=channel, user=user, ts=ts, **fields
            )
        fields.setdefault("parent_user_id", user)
        return self.event(
            "message_in_thread_channel",
            text=text,
            channel=channel,
            user=user,
            ts=ts,
            thread_ts=thread_ts,
            **fields,
        )

    def file_share(
        self,
        files: list[JsonDict],
        text: str = "",
        *,
        channel: str = "C111",
        user: str = "W222",
        **fields: Any,
    ) -> SlackRequest:
        """A `message` with `subtype: file_share`; pass file objects from `FakeSlack.add_file`."""
        ts = fields.pop("ts", None) or next_ts()
        return self.event(
            "message_file_share",
            text=text,
            files=files,
            channel=channel,
            user=user,
            ts=ts,
            **fields,
        )

    def bot_message(
        self,
        text: str = "Beep",
        *,
        bot_id: str = "B999",
        user: str = "UB111",
        channel: str = "C111",
        **fields: Any,
    ) -> SlackRequest:
        """A message posted by a bot (another app's unless `bot_id`/`user` are ours)."""
        ts = fields.pop("ts", None) or next_ts()
        return self.event(
            "message_from_bot_user",
            text=text,
            bot_id=bot_id,
            user=user,
            channel=channel,
            ts=ts,
            **fields,
        )

    def url_verification(
        self, challenge: str = "3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P"
    ) -> SlackRequest:
        data = load_sample("events/url_verification.json")
        data["challenge"] = challenge
        return _event_request(data)

    # ------------------------------------------------------------------ interactivity
    def _people(self, payload: JsonDict, user: str) -> None:
        payload["user"].update(id=user, team_id=self.team_id)
        payload["team"]["id"] = self.team_id
        payload["api_app_id"] = self.app_id

    def block_action(
        self,
        action_id: str,
        value: str | None = None,
        *,
        message: JsonDict | None = None,
        channel: str = "C111",
        user: str = "W111",
        block_id: str = "b",
        action: JsonDict | None = None,
        trigger_id: str | None = None,
        is_ephemeral: bool = False,
    ) -> SlackRequest:
        """A button click on `message` (a message dict, e.g. from `FakeSlack.messages`)."""
        payload = load_sample("interactivity/block_actions_button.json")
        self._people(payload, user)
        message_ts = message["ts"] if message else next_ts()
        payload["container"].update(
            message_ts=message_ts, channel_id=channel, is_ephemeral=is_ephemeral
        )
        if message is not None:
            payload["message"] = message
            if message.get("thread_ts"):
                payload["container"]["thread_ts"] = message["thread_ts"]
        payload["channel"]["id"] = channel
        payload["trigger_id"] = trigger_id or new_trigger_id()
        payload["response_url"] = self.response_url(channel, message_ts)
        clicked = payload["actions"][0]
        clicked.update(action_id=action_id, block_id=block_id, action_ts=next_ts())
        if value is None:
            clicked.pop("value", None)
        else:
            clicked["value"] = value
        if action is not None:
            clicked.update(action)
        return _interactive_request(payload)

    def message_shortcut(
        self,
        callback_id: str,
        *,
        message: JsonDict | None = None,
        text: str = "<@W222> test",
        channel: str = "C111",
        user: str = "W111",
        trigger_id: str | None = None,
    ) -> SlackRequest:
        """A message shortcut on `message` (or on the sample's message with `text`)."""
        payload = load_sample("interactivity/message_action_shortcut.json")
        self._people(payload, user)
        if message is None:
            message = payload["message"]
            message.update(
                text=text, ts=next_ts(), team=self.team_id, client_msg_id=str(uuid.uuid4())
            )
            message["blocks"] = _rich_text(text, message["blocks"][0]["block_id"])
        payload.update(
            callback_id=callback_id, message=message, message_ts=message["ts"], action_ts=next_ts()
        )
        payload["channel"]["id"] = channel
        payload["trigger_id"] = trigger_id or new_trigger_id()
        payload["response_url"] = self.response_url(channel, None)
        return _interactive_request(payload)

    def global_shortcut(self, callback_id: str, *, user: str = "W111") -> SlackRequest:
        payload = load_sample("interactivity/global_shortcut.json")
        self._people(payload, user)
        payload.update(
            callback_id=callback_id,
            action_ts=next_ts(),
            trigger_id=new_trigger_id(),
        )
        return _interactive_request(payload)

    def view_submission(
        self,
        callback_id: str,
        values: dict[str, dict[str, JsonDict]] | None = None,
        *,
        private_metadata: str = "",
        user: str = "W111",
        view_id: str | None = None,
        blocks: list[JsonDict] | None = None,
    ) -> SlackRequest:
        """A modal submitted with `state.values` ({block_id: {action_id: {type, value}}})."""
        payload = load_sample("interactivity/view_submission.json")
        self._people(payload, user)
        view = payload["view"]
        vid = view_id or new_id("V")
        view.update(
            id=vid,
            root_view_id=vid,
            team_id=self.team_id,
            app_id=self.app_id,
            callback_id=callback_id,
        )
        view.update(private_metadata=private_metadata, app_installed_team_id=self.team_id)
        if values is not None:
            view["state"]["values"] = values
        if blocks is not None:
            view["blocks"] = blocks
        return _interactive_request(payload)

    def view_closed(self, callback_id: str, *, user: str = "W111") -> SlackRequest:
        """A modal closed with `notify_on_close` (Slack's `view_closed`: no trigger, no state)."""
        payload = self.view_submission(callback_id, user=user).payload
        payload["type"] = "view_closed"
        payload.pop("trigger_id", None)
        payload.pop("response_urls", None)
        payload["is_cleared"] = False
        return _interactive_request(payload)

    def block_suggestion(
        self, action_id: str, value: str = "", *, channel: str = "C111", user: str = "W111"
    ) -> SlackRequest:
        """An external select in a message asking for its options (Slack's `block_suggestion`)."""
        payload = load_sample("interactivity/block_actions_button.json")
        self._people(payload, user)
        for key in ("actions", "trigger_id", "response_url"):
            payload.pop(key, None)
        payload["container"].update(message_ts=next_ts(), channel_id=channel, is_ephemeral=False)
        payload["channel"]["id"] = channel
        payload.update(type="block_suggestion", action_id=action_id, block_id="b", value=value)
        return _interactive_request(payload)

    # ------------------------------------------------------------------ slash commands
    def slash_command(
        self,
        text: str = "",
        *,
        command: str = "/fm",
        user_id: str = "W111",
        channel_id: str = "C111",
        **fields: str,
    ) -> SlackRequest:
        """A slash command form, as Slack POSTs it (field order kept from the sample)."""
        form = dict(
            parse_qsl(load_text_sample("commands/slash_command.form.txt"), keep_blank_values=True)
        )
        form.update(
            text=text, command=command, user_id=user_id, channel_id=channel_id, team_id=self.team_id
        )
        form.update(api_app_id=self.app_id, trigger_id=new_trigger_id())
        form["response_url"] = self.response_url(channel_id, None)
        form.update(fields)
        return SlackRequest(urlencode(form).encode(), FORM, form, "slash_commands")
