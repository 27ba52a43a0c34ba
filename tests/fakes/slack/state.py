"""What the fake Slack workspace remembers: messages, ephemerals, views, files, users."""

from __future__ import annotations

import copy
import mimetypes
import re
import time
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

from tests.fakes.slack.samples import load_sample, new_id, next_ts

JsonDict = dict[str, Any]

TEAM_ID = "T111"
TEAM_DOMAIN = "faultmaven-test"
BOT_USER_ID = "U0FMBOT"
BOT_ID = "B0FMBOT"
APP_ID = "A111"

_FILETYPES = {
    "txt": "text",
    "log": "text",
    "md": "markdown",
    "json": "json",
    "csv": "csv",
    "gz": "gzip",
}
_SYNTHETIC_USER = re.compile(r"^[UW][A-Z0-9]+$")


def ts_key(ts: str) -> tuple[int, int]:
    """Slack timestamps sort as (seconds, micro-sequence)."""
    seconds, _, micro = ts.partition(".")
    return int(seconds), int(micro or 0)


@dataclass
class StoredFile:
    """A file Slack hosts: its `file` object and its bytes (None until uploaded)."""

    obj: JsonDict
    content: bytes | None = None


@dataclass
class Workspace:
    """One workspace's state, as the Web API methods read and change it."""

    team_id: str = TEAM_ID
    team_domain: str = TEAM_DOMAIN
    bot_user_id: str = BOT_USER_ID
    bot_id: str = BOT_ID
    app_id: str = APP_ID
    base_url: str = ""
    users: dict[str, JsonDict] = field(default_factory=dict)
    usergroups: dict[str, list[str]] = field(default_factory=dict)
    members: dict[str, list[str]] = field(default_factory=dict)
    """Who is in a channel, by channel id; a channel not listed here holds the bot and everyone
    who wrote in it (people post where they are members)."""
    private_channels: set[str] = field(default_factory=set)
    """Channels only their members see (conversations.* answer channel_not_found to others)."""
    scopes: set[str] | None = None
    """The bot token's scopes; None grants every one (methods that check answer missing_scope)."""
    channels: dict[str, dict[str, JsonDict]] = field(default_factory=lambda: defaultdict(dict))
    ephemerals: list[JsonDict] = field(default_factory=list)
    views: dict[str, JsonDict] = field(default_factory=dict)
    used_triggers: set[str] = field(default_factory=set)
    home_views: dict[str, JsonDict] = field(default_factory=dict)
    files: dict[str, StoredFile] = field(default_factory=dict)
    uploads: dict[str, str] = field(default_factory=dict)  # upload ticket -> file id
    statuses: dict[tuple[str, str], str] = field(default_factory=dict)
    """The thread status line now showing, by (channel, thread_ts)."""
    status_history: list[JsonDict] = field(default_factory=list)
    """Every status set or cleared, in order (channel, thread_ts, status, loading_messages)."""
    status_refused: str | None = None
    """Slack's error for assistant.threads.setStatus when the workspace does not allow it."""

    # ------------------------------------------------------------------ messages
    def find(self, channel: str, ts: str) -> JsonDict | None:
        return self.channels[channel].get(ts) if channel in self.channels else None

    def store(self, channel: str, message: JsonDict) -> JsonDict:
        """Store a message; a reply is attached to its thread's parent as Slack does."""
        thread_ts = message.get("thread_ts")
        parent = self.find(channel, thread_ts) if thread_ts else None
        if parent is not None and parent.get("thread_ts", parent["ts"]) != parent["ts"]:
            # Replying to a reply threads under the root, as Slack does.
            thread_ts = message["thread_ts"] = parent["thread_ts"]
            parent = self.find(channel, thread_ts)
        if parent is not None and thread_ts != message["ts"]:
            message["parent_user_id"] = parent.get("user", "")
            parent["thread_ts"] = parent["ts"]
            parent["reply_count"] = parent.get("reply_count", 0) + 1
            users = parent.setdefault("reply_users", [])
            if message.get("user") and message["user"] not in users:
                users.append(message["user"])
            parent["reply_users_count"] = len(users)
            parent["latest_reply"] = message["ts"]
        self.channels[channel][message["ts"]] = message
        if thread_ts and message.get("user") == self.bot_user_id:
            # The app's reply clears its status line in that thread.
            self.statuses.pop((channel, thread_ts), None)
        return message

    def bot_message(self, params: JsonDict, *, ts: str | None = None) -> JsonDict:
        message: JsonDict = {
            "user": self.bot_user_id,
            "type": "message",
            "ts": ts or next_ts(),
            "bot_id": self.bot_id,
            "app_id": self.app_id,
            "text": params.get("text") or "",
            "team": self.team_id,
        }
        for key in ("blocks", "attachments", "metadata", "thread_ts", "files"):
            if params.get(key):
                message[key] = params[key]
        if params.get("files"):
            message["upload"] = True
        return message

    def thread(self, channel: str, thread_ts: str) -> list[JsonDict]:
        found = [
            m
            for m in self.channels.get(channel, {}).values()
            if m["ts"] == thread_ts or m.get("thread_ts") == thread_ts
        ]
        return sorted(found, key=lambda m: ts_key(m["ts"]))

    def top_level(self, channel: str) -> list[JsonDict]:
        found = [
            m
            for m in self.channels.get(channel, {}).values()
            if m.get("thread_ts") in (None, m["ts"])
        ]
        return sorted(found, key=lambda m: ts_key(m["ts"]))

    def permalink(self, channel: str, message: JsonDict) -> str:
        archive = f"https://{self.team_domain}.slack.com/archives/{channel}"
        link = f"{archive}/p{message['ts'].replace('.', '')}"
        thread_ts = message.get("thread_ts")
        if thread_ts and thread_ts != message["ts"]:
            link += f"?thread_ts={thread_ts}&cid={channel}"
        return link

    def channel_members(self, channel: str) -> list[str] | None:
        """The channel's members in join order; None for a channel that does not exist."""
        if channel in self.members:
            return list(self.members[channel])
        if channel not in self.channels:
            return None
        posters = [m["user"] for m in self.channels[channel].values() if m.get("user")]
        return list(dict.fromkeys([self.bot_user_id, *posters]))

    # ------------------------------------------------------------------ users
    def user(self, user_id: str) -> JsonDict | None:
        """A configured user, the bot user, or a synthesized one for any `U…`/`W…` id."""
        if user_id not in self.users and not _SYNTHETIC_USER.match(user_id):
            return None
        name = "faultmaven" if user_id == self.bot_user_id else f"user_{user_id.lower()}"
        base: JsonDict = {
            "id": user_id,
            "team_id": self.team_id,
            "name": name,
            "deleted": False,
            "real_name": name.replace("_", " ").title(),
            "tz": "Etc/UTC",
            "tz_label": "Coordinated Universal Time",
            "tz_offset": 0,
            "is_admin": False,
            "is_owner": False,
            "is_restricted": False,
            "is_bot": user_id == self.bot_user_id,
            "is_app_user": False,
            "updated": int(time.time()),
        }
        base.update(copy.deepcopy(self.users.get(user_id, {})))
        profile = base.setdefault("profile", {})
        profile.setdefault("real_name", base["real_name"])
        profile.setdefault("display_name", base["name"])
        profile.setdefault("team", self.team_id)
        return base

    # ------------------------------------------------------------------ files
    def new_file(
        self,
        name: str,
        *,
        size: int,
        user: str,
        title: str | None = None,
        mimetype: str | None = None,
        filetype: str | None = None,
    ) -> StoredFile:
        """Register a file with a `file` object shaped like Slack's (from the real sample)."""
        file_id = new_id("F")
        obj = load_sample("web_api_responses/files.completeUploadExternal_text_plain.json")[
            "files"
        ][0]
        for key in ("preview", "preview_highlight", "lines", "lines_more", "preview_is_truncated"):
            obj.pop(key, None)
        ext = name.rsplit(".", 1)[-1].lower() if "." in name else ""
        path = f"{self.team_id}-{file_id}"
        quoted = quote(name)
        now = int(time.time())
        obj.update(
            id=file_id,
            created=now,
            timestamp=now,
            name=name,
            title=title or name,
            mimetype=mimetype or mimetypes.guess_type(name)[0] or "text/plain",
            filetype=filetype or _FILETYPES.get(ext, ext or "text"),
            pretty_type=(filetype or _FILETYPES.get(ext, ext or "text")).title(),
            user=user,
            user_team=self.team_id,
            editable=False,
            size=size,
            mode="hosted",
            url_private=f"{self.base_url}/files-pri/{path}/{quoted}",
            url_private_download=f"{self.base_url}/files-pri/{path}/download/{quoted}",
            permalink=f"https://{self.team_domain}.slack.com/files/{user}/{file_id}/{quoted}",
            permalink_public=f"https://slack-files.com/{path}-{new_id('').lower()}",
            edit_link=f"https://{self.team_domain}.slack.com/files/{user}/{file_id}/{quoted}/edit",
            shares={},
            channels=[],
            groups=[],
            ims=[],
        )
        stored = StoredFile(obj)
        self.files[file_id] = stored
        return stored

    def share_file(self, stored: StoredFile, channel: str, message: JsonDict) -> None:
        share = {
            "ts": message["ts"],
            "channel_name": channel.lower(),
            "team_id": self.team_id,
            "share_user_id": message.get("user", ""),
            "source": "UNKNOWN",
            "is_silent_share": False,
        }
        if message.get("thread_ts"):
            share["thread_ts"] = message["thread_ts"]
        stored.obj["shares"].setdefault("public", {}).setdefault(channel, []).append(share)
        if channel not in stored.obj["channels"]:
            stored.obj["channels"].append(channel)
