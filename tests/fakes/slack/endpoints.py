"""The HTTP side of `FakeSlack`: Web API routes, file hosting, uploads, response URLs, websocket."""

from __future__ import annotations

import asyncio
import uuid
from collections import defaultdict, deque
from collections.abc import Mapping
from dataclasses import dataclass
from typing import NamedTuple
from urllib.parse import quote

from aiohttp import web

from tests.fakes.slack import web_api, web_api_status, web_api_surfaces
from tests.fakes.slack.block_kit_validation import check_message
from tests.fakes.slack.payloads import SlackPayloads
from tests.fakes.slack.samples import next_ts
from tests.fakes.slack.socket_mode import FakeSocketMode
from tests.fakes.slack.state import APP_ID, BOT_ID, BOT_USER_ID, TEAM_ID, JsonDict, Workspace
from tests.fakes.slack.web_api import ApiError, decode_json_fields

LOGIN_PAGE = (
    "<!DOCTYPE html><html><head><title>Slack</title></head><body>Sign in to Slack</body></html>"
)


METHODS = {
    **web_api.METHODS,
    **web_api_status.METHODS,
    **web_api_surfaces.METHODS,
}


class Call(NamedTuple):
    """One answered request: Web API method (or file_download/file_upload/response_url) and params.

    Params have the token removed and JSON-string fields (blocks, view, files…) decoded.
    """

    method: str
    params: JsonDict


class Reply(NamedTuple):
    status: int
    body: JsonDict


@dataclass(frozen=True)
class InvalidPayload:
    """A payload Slack would have refused (Block Kit limits, text length)."""

    method: str
    error: str
    errors: list[str]
    params: JsonDict


@dataclass(frozen=True)
class Fault:
    status: int
    error: str
    retry_after: int | None

    def headers(self) -> dict[str, str]:
        return {} if self.retry_after is None else {"Retry-After": str(self.retry_after)}


class SlackServerCore:
    """The HTTP side of `FakeSlack`: routes, authentication, recording, faults and latency."""

    def __init__(
        self,
        *,
        bot_token: str = "xoxb-test",
        app_token: str = "xapp-1-test",
        team_id: str = TEAM_ID,
        bot_user_id: str = BOT_USER_ID,
        bot_id: str = BOT_ID,
        app_id: str = APP_ID,
        users: Mapping[str, JsonDict] | None = None,
        usergroups: Mapping[str, list[str]] | None = None,
        latency: float = 0.0,
    ) -> None:
        self.bot_token = bot_token
        self.app_token = app_token
        self.workspace = Workspace(
            team_id=team_id, bot_user_id=bot_user_id, bot_id=bot_id, app_id=app_id
        )
        self.workspace.users.update({k: dict(v) for k, v in (users or {}).items()})
        self.workspace.usergroups.update({k: list(v) for k, v in (usergroups or {}).items()})
        self.socket_mode = FakeSocketMode(app_id)
        self.payloads = SlackPayloads(team_id, bot_user_id, app_id, self.response_url)
        self.latency = latency
        self.method_latency: dict[str, float] = {}
        self.calls: list[Call] = []
        self.replies: list[Reply] = []
        self.invalid_payloads: list[InvalidPayload] = []
        self.responses: list[JsonDict] = []
        self._faults: dict[str, deque[Fault]] = defaultdict(deque)
        self._hooks: dict[str, tuple[str | None, str | None]] = {}
        self._changed = asyncio.Condition()
        self._runner: web.AppRunner | None = None
        self.base_url = ""

    # ------------------------------------------------------------------ lifecycle
    @property
    def api_url(self) -> str:
        return f"{self.base_url}/api/"

    async def start(self) -> None:
        app = web.Application()
        app.router.add_route("*", "/api/{method}", self._api)
        app.router.add_get("/files-pri/{path}/{tail:.+}", self._download)
        app.router.add_post("/upload/v1/{ticket}", self._upload)
        app.router.add_post("/hooks/response/{hook}", self._response_url)
        app.router.add_get("/link/", self.socket_mode.handle)
        app.router.add_get("/", self._login_page)
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        host, port = self._runner.addresses[0][:2]
        self.base_url = self.workspace.base_url = f"http://{host}:{port}"
        self.socket_mode.ws_base_url = f"ws://{host}:{port}"

    async def close(self) -> None:
        await self.socket_mode.close()
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    def response_url(self, channel: str | None = None, message_ts: str | None = None) -> str:
        """A response_url bound to a message (replace/delete_original) or to a channel."""
        hook = uuid.uuid4().hex
        self._hooks[hook] = (channel, message_ts)
        return f"{self.base_url}/hooks/response/{hook}"

    # ------------------------------------------------------------------ HTTP handlers
    async def _api(self, request: web.Request) -> web.Response:
        name = request.match_info["method"]
        params: JsonDict = dict(request.query)
        status, headers = 200, {}
        try:
            params.update(await _read_body(request))
            bearer = request.headers.get("Authorization", "").removeprefix("Bearer ").strip()
            self._authenticate(name, bearer or str(params.pop("token", "") or ""))
            params.pop("token", None)
            decode_json_fields(params)
            await self._delay(name)
            fault = self._take_fault(name)
            if fault is not None:
                status, body, headers = (
                    fault.status,
                    {"ok": False, "error": fault.error},
                    fault.headers(),
                )
            else:
                body = self._dispatch(name, params)
        except ApiError as e:
            status, body = e.status, e.body()
            if e.rejection is not None:
                self.invalid_payloads.append(
                    InvalidPayload(name, e.error, list(e.rejection.errors), params)
                )
        await self._record(name, params, status, body)
        return web.json_response(body, status=status, headers=headers)

    def _authenticate(self, method: str, token: str) -> None:
        wanted, other = (
            (self.app_token, self.bot_token)
            if method == "apps.connections.open"
            else (self.bot_token, self.app_token)
        )
        if not token:
            raise ApiError("not_authed")
        if token == other:
            raise ApiError("not_allowed_token_type")
        if token != wanted:
            raise ApiError("invalid_auth")

    def _dispatch(self, name: str, params: JsonDict) -> JsonDict:
        if name == "apps.connections.open":
            return {"ok": True, "url": self.socket_mode.issue_url()}
        handler = METHODS.get(name)
        if handler is None:
            raise ApiError("unknown_method", status=404)
        return handler(self.workspace, params)

    async def _download(self, request: web.Request) -> web.Response:
        file_id = request.match_info["path"].partition("-")[2]
        stored = self.workspace.files.get(file_id)
        authorized = request.headers.get("Authorization") == f"Bearer {self.bot_token}"
        await self._delay("file_download")
        fault = self._take_fault("file_download")
        if fault is not None:
            response = web.Response(status=fault.status, text=fault.error, headers=fault.headers())
        elif not authorized:
            # Slack never says "unauthorized" here: it redirects to its HTML sign-in page.
            response = web.Response(
                status=302, headers={"Location": f"{self.base_url}/?redir={quote(request.path)}"}
            )
        elif stored is None or stored.content is None:
            response = web.Response(
                status=404, text="<html>File not found</html>", content_type="text/html"
            )
        else:
            response = web.Response(body=stored.content, content_type=stored.obj["mimetype"])
        params = {
            "file": file_id,
            "authorized": authorized,
            "download": request.match_info["tail"].startswith("download/"),
        }
        await self._record("file_download", params, response.status, {"ok": response.status == 200})
        return response

    async def _upload(self, request: web.Request) -> web.Response:
        file_id = self.workspace.uploads.pop(request.match_info["ticket"], None)
        if file_id is None:
            return web.Response(status=404, text="upload url not found", content_type="text/plain")
        if request.content_type == "multipart/form-data":
            form = await request.post()
            data = next((v.file.read() for v in form.values() if isinstance(v, web.FileField)), b"")
        else:
            data = await request.read()
        stored = self.workspace.files[file_id]
        stored.content = data
        stored.obj["size"] = len(data)
        await self._record("file_upload", {"file": file_id, "size": len(data)}, 200, {"ok": True})
        return web.Response(text=f"OK - {len(data)}", content_type="text/plain")

    async def _response_url(self, request: web.Request) -> web.Response:
        target = self._hooks.get(request.match_info["hook"])
        if target is None:
            return web.Response(status=404, text="no_service", content_type="text/plain")
        body: JsonDict = await request.json()
        self.responses.append(body)
        rejection = check_message(body.get("text"), body.get("blocks"))
        if rejection is not None:
            self.invalid_payloads.append(
                InvalidPayload("response_url", rejection.error, list(rejection.errors), body)
            )
            status, text = 400, rejection.error
        else:
            self._apply_response(target, body)
            status, text = 200, "ok"
        await self._record("response_url", body, status, {"ok": status == 200})
        return web.Response(status=status, text=text, content_type="text/plain")

    async def _login_page(self, request: web.Request) -> web.Response:
        return web.Response(text=LOGIN_PAGE, content_type="text/html")

    # ------------------------------------------------------------------ internals
    def _apply_response(self, target: tuple[str | None, str | None], body: JsonDict) -> None:
        channel, ts = target
        ws = self.workspace
        original = ws.find(channel, ts) if channel and ts else None
        if original is not None and body.get("delete_original"):
            del ws.channels[str(channel)][original["ts"]]
        elif original is not None and body.get("replace_original"):
            original.update({k: body[k] for k in ("text", "blocks") if k in body})
        elif channel and body.get("response_type") == "in_channel":
            ws.store(channel, ws.bot_message(body))
        else:
            ws.ephemerals.append({"channel": channel, "user": None, "ts": next_ts(), **body})

    async def _delay(self, name: str) -> None:
        seconds = self.method_latency.get(name, self.latency)
        if seconds > 0:
            await asyncio.sleep(seconds)

    def _take_fault(self, name: str) -> Fault | None:
        queue = self._faults.get(name)
        return queue.popleft() if queue else None

    async def _record(self, name: str, params: JsonDict, status: int, body: JsonDict) -> None:
        async with self._changed:
            self.calls.append(Call(name, params))
            self.replies.append(Reply(status, body))
            self._changed.notify_all()


async def _read_body(request: web.Request) -> JsonDict:
    """JSON and form bodies alike (slack_sdk sends both); file parts are read as bytes."""
    if not request.can_read_body:
        return {}
    if request.content_type == "application/json":
        try:
            data = await request.json()
        except ValueError:
            raise ApiError("invalid_json") from None
        return data if isinstance(data, dict) else {}
    if request.content_type in ("application/x-www-form-urlencoded", "multipart/form-data"):
        form = await request.post()
        return {k: (v.file.read() if isinstance(v, web.FileField) else v) for k, v in form.items()}
    return {}
