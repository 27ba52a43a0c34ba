"""Fake model providers on 127.0.0.1 with scripted replies and faults, over real HTTP.

Each request takes the next scripted item: a reply, a refusal, a reply cut off at the output limit,
a delay, an HTTP error, a dropped connection, malformed or schema-violating JSON. Every request
body is kept for assertions. Before any script is used, the request is checked the way the real
provider checks it; a request the provider would refuse gets the provider's own error (status and
body), whatever is scripted.

`ScriptedModelServer` holds what every fake shares; `FakeLLMServer` is OpenAI's chat completions
API with strict structured outputs. The others live beside it (Anthropic, Ollama, JSON mode only).
"""

from __future__ import annotations

import asyncio
import json
import re
import threading
from abc import ABC, abstractmethod
from collections.abc import Coroutine
from dataclasses import dataclass, field
from typing import Any, ClassVar

from aiohttp import web
from pydantic import BaseModel

from bot.llm.library import close_litellm_sessions
from tests.fakes.models.provider_rules import (
    fill_nullable,
    openai_content_problem,
    openai_strict_problem,
)

JsonDict = dict[str, Any]
_SCHEMA_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")


@dataclass(frozen=True)
class Scripted:
    """One scripted answer."""

    content: str | None = None
    """Assistant message content (sent with status 200)."""
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    delay_s: float = 0.0
    drop: bool = False
    prompt_tokens: int = 120
    completion_tokens: int = 40
    finish: str = "stop"
    """``stop``, ``length`` (cut off at the output limit) or ``content_filter``."""
    refusal: str | None = None
    """The model declines to answer, with these words."""
    message: str | None = None
    """The error message of an HTTP error (the provider's usual words when None)."""


def reply(body: BaseModel | dict[str, Any] | str, *, delay_s: float = 0.0) -> Scripted:
    """A 200 whose assistant content is ``body`` as JSON (a string is sent as is)."""
    if isinstance(body, BaseModel):
        content = body.model_dump_json()
    elif isinstance(body, dict):
        content = json.dumps(body)
    else:
        content = body
    return Scripted(content=content, delay_s=delay_s)


def delayed(body: BaseModel | dict[str, Any] | str, seconds: float) -> Scripted:
    """A reply that arrives after ``seconds``."""
    return reply(body, delay_s=seconds)


def malformed() -> Scripted:
    """Content that is not JSON at all."""
    return Scripted(content='{"agent_response": "cut off in the mid')


def schema_violation() -> Scripted:
    """Valid JSON that matches no reply schema (and tries to set the status directly)."""
    return Scripted(content=json.dumps({"status": "resolved", "agent_response": 42}))


def status(code: int, *, retry_after: str | None = None, message: str | None = None) -> Scripted:
    """An HTTP error, optionally with Retry-After and the provider's error message."""
    headers = {"Retry-After": retry_after} if retry_after is not None else {}
    return Scripted(status=code, headers=headers, message=message)


def dropped() -> Scripted:
    """Close the connection without answering."""
    return Scripted(drop=True)


def refusal(words: str = "I'm sorry, but I can't help with that request.") -> Scripted:
    """The model declines to answer."""
    return Scripted(refusal=words)


def cut_off(body: BaseModel | dict[str, Any] | str) -> Scripted:
    """A reply that stops at the output limit: its text ends mid-way."""
    whole = reply(body).content or ""
    return Scripted(content=whole[: max(1, len(whole) // 2)], finish="length")


def filtered() -> Scripted:
    """The provider's content filter stops the reply."""
    return Scripted(content="", finish="content_filter")


class Refused(Exception):
    """A request the provider refuses before any model sees it."""

    def __init__(self, status: int, message: str, **fields: Any) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.fields = fields


class ScriptedModelServer(ABC):
    """What every fake provider shares: scripts, kept requests, a server on a free port.

    Subclasses add their routes, check requests the way their provider does, and render scripted
    items in their provider's wire format.
    """

    model_name: ClassVar[str] = "test-model"
    provider: ClassVar[str] = "openai"
    base_path: ClassVar[str] = "/v1"

    def __init__(self, *, models: set[str] | None = None) -> None:
        self.queue: list[Scripted] = []
        self.requests: list[JsonDict] = []
        self.headers: list[dict[str, str]] = []
        self.models = models
        """Models the provider serves (None: any)."""
        self._runner: web.AppRunner | None = None
        self._port = 0

    @property
    def url(self) -> str:
        """Base URL of the server."""
        return f"http://127.0.0.1:{self._port}"

    @property
    def api_base(self) -> str:
        """What to give litellm as ``api_base``."""
        return f"{self.url}{self.base_path}"

    @property
    def model(self) -> str:
        """The litellm model string that reaches this fake through its provider's code path."""
        return f"{self.provider}/{self.model_name}"

    def script(self, *items: Scripted) -> ScriptedModelServer:
        """Queue answers, used in order."""
        self.queue.extend(items)
        return self

    @abstractmethod
    def routes(self, app: web.Application) -> None:
        """Add the provider's endpoints."""

    async def __aenter__(self) -> ScriptedModelServer:
        """Serve from a thread of its own, as a real provider is another process.

        litellm makes some calls synchronously (Ollama's model details, for one); a fake on the
        test's own event loop could not answer them while that loop waits.
        """
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._thread.start()
        await self._in_thread(self._start())
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self._runner is not None
        # litellm pooled its sessions in the test's event loop; close them while it runs.
        await close_litellm_sessions()
        await self._in_thread(self._runner.cleanup())
        await self._in_thread(_cancel_the_rest())
        self._loop.call_soon_threadsafe(self._loop.stop)
        await asyncio.to_thread(self._thread.join)
        self._loop.close()

    async def _in_thread(self, work: Coroutine[Any, Any, None]) -> None:
        await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(work, self._loop))

    async def _start(self) -> None:
        app = web.Application()
        self.routes(app)
        self._runner = web.AppRunner(app, shutdown_timeout=0.1, handle_signals=False)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        server = site._server
        assert server is not None
        self._port = server.sockets[0].getsockname()[1]  # type: ignore[attr-defined]

    async def keep(self, request: web.Request) -> JsonDict:
        """Keep the request (body and headers) for assertions."""
        body: JsonDict = await request.json()
        self.requests.append(body)
        self.headers.append({k.lower(): v for k, v in request.headers.items()})
        return body

    async def next_item(self) -> Scripted | None:
        """The next script, once the request passed the provider's checks (None: nothing left)."""
        if not self.queue:
            return None
        item = self.queue.pop(0)
        if item.delay_s:
            await asyncio.sleep(item.delay_s)
        return item

    def known(self, model: str) -> bool:
        """The provider serves ``model``."""
        return self.models is None or model in self.models


async def _cancel_the_rest() -> None:
    """Requests still being answered (a scripted delay) end with the server, not at exit."""
    others = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
    for task in others:
        task.cancel()
    await asyncio.gather(*others, return_exceptions=True)


class FakeLLMServer(ScriptedModelServer):
    """OpenAI chat completions with strict structured outputs (``openai/…`` with ``api_base``).

    Refuses what OpenAI refuses: a strict schema outside its documented subset (400 naming the
    schema, param ``response_format``), JSON mode without the word "json" in the messages, an
    unknown model (404). Replies carry ``refusal``, ``finish_reason: length`` and
    ``content_filter`` as OpenAI sends them; a strict reply has every nullable property filled in.
    """

    nothing_scripted: ClassVar[int] = 418
    """The status of a request nothing was scripted for (one no real provider sends)."""
    sees_images: ClassVar[bool] = True
    """Whether the model takes image parts (a text-only model refuses them, as OpenAI's do)."""

    async def __aenter__(self) -> FakeLLMServer:
        await super().__aenter__()
        return self

    def routes(self, app: web.Application) -> None:
        app.router.add_post("/v1/chat/completions", self._handle)
        app.router.add_post("/chat/completions", self._handle)

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        body = await self.keep(request)
        try:
            self.check(body)
        except Refused as refused:
            return openai_error(refused.status, refused.message, **refused.fields)
        item = await self.next_item()
        if item is None:
            return openai_error(self.nothing_scripted, "nothing scripted")
        if item.drop:
            assert request.transport is not None
            request.transport.close()
            return web.Response()
        if item.status != 200:
            message = item.message or f"scripted {item.status}"
            return openai_error(item.status, message, headers=item.headers)
        return web.json_response(completion(body, item, self.reply_schema(body)))

    def reply_schema(self, body: JsonDict) -> JsonDict | None:
        """The strict schema a reply is filled against (every nullable property present)."""
        return strict_schema(body)

    def check(self, body: JsonDict) -> None:
        """Raise Refused for a request OpenAI would refuse."""
        model = str(body.get("model", ""))
        if not self.known(model):
            raise Refused(
                404,
                f"The model `{model}` does not exist or you do not have access to it.",
                code="model_not_found",
            )
        check_response_format(body)
        problem = openai_content_problem(body.get("messages"))
        if problem is not None:
            raise Refused(400, problem.message, param=problem.param, code=problem.code)
        if not self.sees_images and "image_url" in json.dumps(body.get("messages", [])):
            raise Refused(
                400, "Invalid content type. image_url is only supported by certain models."
            )


def check_response_format(body: JsonDict) -> None:
    """OpenAI's rules for ``response_format`` (strict schemas and JSON mode)."""
    wanted = body.get("response_format") or {}
    kind = wanted.get("type")
    if kind == "json_object" and "json" not in json.dumps(body.get("messages", [])).lower():
        raise Refused(
            400,
            "'messages' must contain the word 'json' in some form, to use 'response_format' of "
            "type 'json_object'.",
            param="messages",
        )
    if kind != "json_schema":
        return
    spec = wanted.get("json_schema") or {}
    name = str(spec.get("name", ""))
    if not _SCHEMA_NAME.match(name):
        raise Refused(400, f"Invalid 'response_format.json_schema.name': {name!r}.")
    if spec.get("strict"):
        problem = openai_strict_problem(spec.get("schema"))
        if problem:
            message = f"Invalid schema for response_format '{name}': {problem}"
            raise Refused(400, message, param="response_format")


def strict_schema(body: JsonDict) -> JsonDict | None:
    """The strict schema the request asked for, if any."""
    wanted = body.get("response_format") or {}
    spec = wanted.get("json_schema") or {}
    if wanted.get("type") == "json_schema" and spec.get("strict"):
        schema: JsonDict = spec.get("schema") or {}
        return schema
    return None


def openai_error(
    status_code: int,
    message: str,
    *,
    param: str | None = None,
    headers: dict[str, str] | None = None,
    **fields: Any,
) -> web.Response:
    """An error as OpenAI sends it."""
    kinds = {401: "invalid_request_error", 429: "requests"}
    kind = "server_error" if status_code >= 500 else kinds.get(status_code, "invalid_request_error")
    error = {
        "message": message,
        "type": kind,
        "param": param,
        "code": fields.get("code"),
    }
    return web.json_response({"error": error}, status=status_code, headers=headers or {})


def completion(body: JsonDict, item: Scripted, schema: JsonDict | None) -> JsonDict:
    """A chat completion as OpenAI sends it."""
    content = item.content
    if schema is not None and content:
        content = _filled(content, schema)
    message: JsonDict = {"role": "assistant", "content": content, "refusal": None}
    if item.refusal is not None:
        message = {"role": "assistant", "content": None, "refusal": item.refusal}
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": 1_763_735_400,
        "model": body.get("model", "test-model"),
        "choices": [{"index": 0, "message": message, "finish_reason": item.finish}],
        "usage": {
            "prompt_tokens": item.prompt_tokens,
            "completion_tokens": item.completion_tokens,
            "total_tokens": item.prompt_tokens + item.completion_tokens,
        },
    }


def _filled(content: str, schema: JsonDict) -> str:
    try:
        value = json.loads(content)
    except json.JSONDecodeError:
        return content
    return json.dumps(fill_nullable(value, schema))
