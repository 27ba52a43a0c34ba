"""The fake's Web API methods that show the app is working: reactions and the thread status line.

`assistant.threads.setStatus` follows Slack's reference: `channel_id`, `thread_ts` and `status`
are required, an empty status clears the line, at most ten `loading_messages`, and the app's next
reply in the thread clears it too (see `Workspace.store`). A workspace that does not allow it
answers with `Workspace.status_refused`.
"""

from __future__ import annotations

from tests.fakes.slack.state import JsonDict, Workspace
from tests.fakes.slack.web_api import ApiError, Handler, registry, required_arg

METHODS: dict[str, Handler] = {}
method = registry(METHODS)
MAX_LOADING_MESSAGES = 10


@method("reactions.add")
def reactions_add(ws: Workspace, params: JsonDict) -> JsonDict:
    message = _reacted_message(ws, params)
    name = required_arg(params, "name", "invalid_name")
    reactions = message.setdefault("reactions", [])
    reaction = next((r for r in reactions if r["name"] == name), None)
    if reaction is None:
        reaction = {"name": name, "users": [], "count": 0}
        reactions.append(reaction)
    if ws.bot_user_id in reaction["users"]:
        raise ApiError("already_reacted")
    reaction["users"].append(ws.bot_user_id)
    reaction["count"] += 1
    return {"ok": True}


@method("reactions.remove")
def reactions_remove(ws: Workspace, params: JsonDict) -> JsonDict:
    message = _reacted_message(ws, params)
    name = required_arg(params, "name", "invalid_name")
    reactions = message.get("reactions", [])
    reaction = next((r for r in reactions if r["name"] == name), None)
    if reaction is None or ws.bot_user_id not in reaction["users"]:
        raise ApiError("no_reaction")
    reaction["users"].remove(ws.bot_user_id)
    reaction["count"] -= 1
    if not reaction["count"]:
        reactions.remove(reaction)
    if not reactions:
        message.pop("reactions", None)
    return {"ok": True}


def _reacted_message(ws: Workspace, params: JsonDict) -> JsonDict:
    channel = required_arg(params, "channel", "channel_not_found")
    message = ws.find(channel, required_arg(params, "timestamp", "message_not_found"))
    if message is None:
        raise ApiError("message_not_found")
    return message


@method("assistant.threads.setStatus")
def assistant_threads_set_status(ws: Workspace, params: JsonDict) -> JsonDict:
    channel = required_arg(params, "channel_id", "channel_not_found")
    thread_ts = required_arg(params, "thread_ts", "invalid_thread_ts")
    if "status" not in params or not isinstance(params["status"], str):
        raise ApiError("invalid_arguments")
    if ws.status_refused:
        raise ApiError(ws.status_refused)
    if channel not in ws.channels:
        raise ApiError("channel_not_found")
    if ws.find(channel, thread_ts) is None:
        raise ApiError("invalid_thread_ts")
    loading = params.get("loading_messages") or []
    if not isinstance(loading, list) or len(loading) > MAX_LOADING_MESSAGES:
        raise ApiError("invalid_arguments")
    status = params["status"]
    if status:
        ws.statuses[(channel, thread_ts)] = status
    else:
        ws.statuses.pop((channel, thread_ts), None)
    ws.status_history.append(
        {"channel": channel, "thread_ts": thread_ts, "status": status, "loading_messages": loading}
    )
    return {"ok": True}
