"""The fake's Web API methods for views (modals, App Home) and files (info, the upload flow)."""

from __future__ import annotations

import copy
import secrets
import time

from tests.fakes.slack.block_kit_validation import check_view
from tests.fakes.slack.samples import TRIGGER_TTL_S, new_id, trigger_age_s
from tests.fakes.slack.state import JsonDict, Workspace
from tests.fakes.slack.web_api import ApiError, Handler, registry, required_arg

METHODS: dict[str, Handler] = {}
method = registry(METHODS)


# ---------------------------------------------------------------------------- views
def _view(ws: Workspace, params: JsonDict, *, view_id: str | None = None) -> JsonDict:
    view = params.get("view")
    rejection = check_view(view)
    if rejection is not None:
        raise ApiError(rejection.error, rejection=rejection)
    assert isinstance(view, dict)
    vid = view_id or new_id("V")
    return {
        "id": vid,
        "team_id": ws.team_id,
        "type": view["type"],
        "blocks": view.get("blocks", []),
        "private_metadata": view.get("private_metadata", ""),
        "callback_id": view.get("callback_id", ""),
        "state": {"values": {}},
        "hash": f"{int(time.time())}.{secrets.token_hex(4)}",
        "title": view.get("title"),
        "clear_on_close": bool(view.get("clear_on_close", False)),
        "notify_on_close": bool(view.get("notify_on_close", False)),
        "close": view.get("close"),
        "submit": view.get("submit"),
        "previous_view_id": None,
        "root_view_id": vid,
        "app_id": ws.app_id,
        "external_id": view.get("external_id", ""),
        "app_installed_team_id": ws.team_id,
        "bot_id": ws.bot_id,
    }


@method("views.open")
@method("views.push")
def views_open(ws: Workspace, params: JsonDict) -> JsonDict:
    trigger = required_arg(params, "trigger_id", "invalid_trigger_id")
    if trigger in ws.used_triggers:
        raise ApiError("exchanged_trigger_id")  # each trigger opens one view
    age = trigger_age_s(trigger)
    if age is not None and age > TRIGGER_TTL_S:
        raise ApiError("expired_trigger_id")
    view = _view(ws, params)
    ws.used_triggers.add(trigger)
    ws.views[view["id"]] = view
    return {"ok": True, "view": copy.deepcopy(view)}


@method("views.update")
def views_update(ws: Workspace, params: JsonDict) -> JsonDict:
    wanted = params.get("view_id") or params.get("external_id")
    key = "id" if params.get("view_id") else "external_id"
    current = next((v for v in ws.views.values() if wanted and v.get(key) == wanted), None)
    if current is None:
        raise ApiError("not_found")
    if params.get("hash") and params["hash"] != current["hash"]:
        raise ApiError("hash_conflict")
    view = _view(ws, params, view_id=current["id"])
    ws.views[view["id"]] = view
    return {"ok": True, "view": copy.deepcopy(view)}


@method("views.publish")
def views_publish(ws: Workspace, params: JsonDict) -> JsonDict:
    user = required_arg(params, "user_id", "invalid_arguments")
    view = _view(ws, params, view_id=ws.home_views.get(user, {}).get("id"))
    if view["type"] != "home":
        raise ApiError("invalid_arguments")
    ws.home_views[user] = ws.views[view["id"]] = view
    return {"ok": True, "view": copy.deepcopy(view)}


# ---------------------------------------------------------------------------- files
@method("files.info")
def files_info(ws: Workspace, params: JsonDict) -> JsonDict:
    stored = ws.files.get(required_arg(params, "file", "file_not_found"))
    if stored is None:
        raise ApiError("file_not_found")
    return {
        "ok": True,
        "file": copy.deepcopy(stored.obj),
        "comments": [],
        "response_metadata": {"next_cursor": ""},
    }


ALT_TXT_MAX = 1000
"""Slack refuses a longer description of an image."""


@method("files.getUploadURLExternal")
def files_get_upload_url_external(ws: Workspace, params: JsonDict) -> JsonDict:
    name = required_arg(params, "filename")
    length = int(required_arg(params, "length"))
    if length <= 0:
        raise ApiError("missing_argument")  # Slack's answer to a length of 0
    if len(str(params.get("alt_txt") or "")) > ALT_TXT_MAX:
        raise ApiError("alt_txt_too_large")
    stored = ws.new_file(name, size=length, user=ws.bot_user_id)
    ticket = secrets.token_urlsafe(12)
    ws.uploads[ticket] = stored.obj["id"]
    return {
        "ok": True,
        "upload_url": f"{ws.base_url}/upload/v1/{ticket}",
        "file_id": stored.obj["id"],
    }


@method("files.completeUploadExternal")
def files_complete_upload_external(ws: Workspace, params: JsonDict) -> JsonDict:
    entries = params.get("files")
    if not isinstance(entries, list) or not entries:
        raise ApiError("invalid_arguments")
    stored_files = []
    for entry in entries:
        stored = ws.files.get(str(entry.get("id")))
        if stored is None or stored.content is None:
            raise ApiError("file_not_found")
        if entry.get("title"):
            stored.obj["title"] = entry["title"]
        stored_files.append(stored)
    channel = params.get("channel_id") or (params.get("channels") or "").split(",")[0]
    if channel:
        objects = [copy.deepcopy(s.obj) for s in stored_files]
        message = ws.store(
            channel,
            ws.bot_message(
                {
                    "text": params.get("initial_comment"),
                    "files": objects,
                    "thread_ts": params.get("thread_ts"),
                }
            ),
        )
        for stored in stored_files:
            ws.share_file(stored, channel, message)
        message["files"] = [copy.deepcopy(s.obj) for s in stored_files]
    return {"ok": True, "files": [copy.deepcopy(s.obj) for s in stored_files]}
