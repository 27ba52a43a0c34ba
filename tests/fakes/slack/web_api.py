"""The fake's Web API methods for auth, users and chat: each reads and changes a `Workspace`."""

from __future__ import annotations

import base64
import binascii
import copy
import json
from collections.abc import Callable

from tests.fakes.slack.block_kit_validation import Rejection, check_message
from tests.fakes.slack.samples import next_ts
from tests.fakes.slack.state import JsonDict, Workspace

Handler = Callable[[Workspace, JsonDict], JsonDict]
METHODS: dict[str, Handler] = {}


class ApiError(Exception):
    """A Web API error answer: `{"ok": false, "error": ...}` plus Slack's details."""

    def __init__(
        self,
        error: str,
        *,
        status: int = 200,
        rejection: Rejection | None = None,
        details: JsonDict | None = None,
    ) -> None:
        super().__init__(error)
        self.error = error
        self.status = status
        self.rejection = rejection
        self.details = details or {}

    def body(self) -> JsonDict:
        body: JsonDict = {"ok": False, "error": self.error, **self.details}
        if self.rejection is not None:
            body["errors"] = list(self.rejection.errors)
            body["response_metadata"] = {
                "messages": [f"[ERROR] {e}" for e in self.rejection.errors]
            }
        return body


def registry(table: dict[str, Handler]) -> Callable[[str], Callable[[Handler], Handler]]:
    """A decorator registering handlers by Slack method name into `table`."""

    def method(name: str) -> Callable[[Handler], Handler]:
        def register(handler: Handler) -> Handler:
            table[name] = handler
            return handler

        return register

    return method


method = registry(METHODS)


def required_arg(params: JsonDict, name: str, error: str = "invalid_arguments") -> str:
    value = params.get(name)
    if value in (None, ""):
        raise ApiError(error)
    return str(value)


def require_scope(ws: Workspace, scope: str) -> None:
    """Slack's answer to a token without ``scope``: missing_scope, naming needed and provided."""
    if ws.scopes is not None and scope not in ws.scopes:
        provided = ",".join(sorted(ws.scopes))
        raise ApiError("missing_scope", details={"needed": scope, "provided": provided})


def _check_message(params: JsonDict, *, need_content: bool = True) -> None:
    if need_content and not any(params.get(k) for k in ("text", "blocks", "attachments")):
        raise ApiError("no_text")
    rejection = check_message(params.get("text"), params.get("blocks"))
    if rejection is not None:
        raise ApiError(rejection.error, rejection=rejection)


def _own_message(ws: Workspace, params: JsonDict, ts_field: str, refused: str) -> JsonDict:
    channel = required_arg(params, "channel", "channel_not_found")
    message = ws.find(channel, required_arg(params, ts_field, "message_not_found"))
    if message is None:
        raise ApiError("message_not_found")
    if message.get("user") != ws.bot_user_id:
        raise ApiError(refused)
    return message


# ---------------------------------------------------------------------------- auth, users
@method("auth.test")
def auth_test(ws: Workspace, params: JsonDict) -> JsonDict:
    return {
        "ok": True,
        "url": f"https://{ws.team_domain}.slack.com/",
        "team": "FaultMaven Test",
        "user": "faultmaven",
        "team_id": ws.team_id,
        "user_id": ws.bot_user_id,
        "bot_id": ws.bot_id,
        "is_enterprise_install": False,
    }


@method("users.info")
def users_info(ws: Workspace, params: JsonDict) -> JsonDict:
    user = ws.user(required_arg(params, "user", "user_not_found"))
    if user is None:
        raise ApiError("user_not_found")
    return {"ok": True, "user": user}


@method("usergroups.users.list")
def usergroups_users_list(ws: Workspace, params: JsonDict) -> JsonDict:
    require_scope(ws, "usergroups:read")
    group = required_arg(params, "usergroup", "no_such_subteam")
    if group not in ws.usergroups:
        raise ApiError("no_such_subteam")
    return {"ok": True, "users": list(ws.usergroups[group])}


@method("conversations.members")
def conversations_members(ws: Workspace, params: JsonDict) -> JsonDict:
    """A page of a channel's members (cursor: the next member, base64 like Slack's).

    The scope follows the channel's kind (channels:read, groups:read when private); a private
    channel is channel_not_found to a bot outside it, a public one not_in_channel.
    """
    channel = required_arg(params, "channel", "channel_not_found")
    members = ws.channel_members(channel)
    private = channel in ws.private_channels
    if members is None or (private and ws.bot_user_id not in members):
        raise ApiError("channel_not_found")
    require_scope(ws, "groups:read" if private else "channels:read")
    if ws.bot_user_id not in members:
        raise ApiError("not_in_channel")
    limit = _page_limit(params)
    start = _cursor_position(params.get("cursor"), members)
    page = members[start : start + limit]
    rest = members[start + limit :]
    next_cursor = _cursor_of(rest[0]) if rest else ""
    return {"ok": True, "members": page, "response_metadata": {"next_cursor": next_cursor}}


def _page_limit(params: JsonDict) -> int:
    """Slack's default page is 100 members and its largest 1000."""
    try:
        limit = int(params.get("limit") or 100)
    except ValueError:
        raise ApiError("invalid_limit") from None
    if limit < 1:
        raise ApiError("invalid_limit")
    return min(limit, 1000)


def _cursor_of(member: str) -> str:
    return base64.b64encode(f"user_id:{member}".encode()).decode()


def _cursor_position(cursor: object, members: list[str]) -> int:
    if not cursor:
        return 0
    try:
        member = base64.b64decode(str(cursor), validate=True).decode().removeprefix("user_id:")
    except (binascii.Error, UnicodeDecodeError):
        raise ApiError("invalid_cursor") from None
    if member not in members:
        raise ApiError("invalid_cursor")
    return members.index(member)


# ---------------------------------------------------------------------------- chat
@method("chat.postMessage")
def chat_post_message(ws: Workspace, params: JsonDict) -> JsonDict:
    channel = required_arg(params, "channel", "channel_not_found")
    _check_message(params)
    message = ws.store(channel, ws.bot_message(params))
    return {"ok": True, "channel": channel, "ts": message["ts"], "message": copy.deepcopy(message)}


@method("chat.update")
def chat_update(ws: Workspace, params: JsonDict) -> JsonDict:
    message = _own_message(ws, params, "ts", "cant_update_message")
    _check_message(params, need_content=False)
    for key in ("text", "blocks", "attachments", "metadata"):
        if key in params:
            message[key] = params[key]
    message["edited"] = {"user": ws.bot_user_id, "ts": next_ts()}
    return {
        "ok": True,
        "channel": params["channel"],
        "ts": message["ts"],
        "text": message.get("text", ""),
        "message": copy.deepcopy(message),
    }


@method("chat.postEphemeral")
def chat_post_ephemeral(ws: Workspace, params: JsonDict) -> JsonDict:
    channel = required_arg(params, "channel", "channel_not_found")
    user = required_arg(params, "user", "user_not_in_channel")
    _check_message(params)
    ts = next_ts()
    ephemeral = {"channel": channel, "user": user, "ts": ts, "text": params.get("text") or ""}
    for key in ("blocks", "attachments", "thread_ts"):
        if params.get(key):
            ephemeral[key] = params[key]
    ws.ephemerals.append(ephemeral)
    return {"ok": True, "message_ts": ts}


@method("chat.delete")
def chat_delete(ws: Workspace, params: JsonDict) -> JsonDict:
    message = _own_message(ws, params, "ts", "cant_delete_message")
    del ws.channels[params["channel"]][message["ts"]]
    return {"ok": True, "channel": params["channel"], "ts": message["ts"]}


@method("chat.getPermalink")
def chat_get_permalink(ws: Workspace, params: JsonDict) -> JsonDict:
    channel = required_arg(params, "channel", "channel_not_found")
    message = ws.find(channel, required_arg(params, "message_ts", "message_not_found"))
    if message is None:
        raise ApiError("message_not_found")
    return {"ok": True, "channel": channel, "permalink": ws.permalink(channel, message)}


@method("conversations.replies")
def conversations_replies(ws: Workspace, params: JsonDict) -> JsonDict:
    channel = required_arg(params, "channel", "channel_not_found")
    thread = ws.thread(channel, required_arg(params, "ts", "thread_not_found"))
    if not thread:
        raise ApiError("thread_not_found")
    start = int(params.get("cursor") or 0)
    limit = int(params.get("limit") or 1000)
    page = thread[start : start + limit]
    more = start + limit < len(thread)
    return {
        "ok": True,
        "messages": copy.deepcopy(page),
        "has_more": more,
        "response_metadata": {"next_cursor": str(start + limit) if more else ""},
    }


def decode_json_fields(params: JsonDict) -> None:
    """Form-encoded calls carry blocks, views and file lists as JSON strings; Slack decodes them."""
    for key in ("blocks", "attachments", "view", "files", "metadata"):
        value = params.get(key)
        if isinstance(value, str):
            try:
                params[key] = json.loads(value)
            except ValueError:
                raise ApiError(
                    "invalid_blocks_format" if key == "blocks" else "invalid_arguments"
                ) from None
