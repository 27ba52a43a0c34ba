"""A fake OpenAI-compatible chat-completions server on 127.0.0.1 with scripted replies and faults.

Each request to ``POST /v1/chat/completions`` (or ``/chat/completions``) takes the next scripted
item: a JSON reply, a delay, an HTTP status (429 with Retry-After, 500…), a dropped connection,
malformed JSON or schema-violating JSON. Every request body is kept for assertions.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web
from pydantic import BaseModel


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


def status(code: int, *, retry_after: str | None = None) -> Scripted:
    """An HTTP error, optionally with Retry-After."""
    headers = {"Retry-After": retry_after} if retry_after is not None else {}
    return Scripted(status=code, headers=headers)


def dropped() -> Scripted:
    """Close the connection without answering."""
    return Scripted(drop=True)


class FakeLLMServer:
    """Start with ``async with FakeLLMServer() as server``; script with ``server.script(...)``."""

    def __init__(self) -> None:
        self.queue: list[Scripted] = []
        self.requests: list[dict[str, Any]] = []
        self._runner: web.AppRunner | None = None
        self._port = 0

    @property
    def url(self) -> str:
        """Base URL of the server."""
        return f"http://127.0.0.1:{self._port}"

    @property
    def api_base(self) -> str:
        """What to give litellm as ``api_base``."""
        return f"{self.url}/v1"

    def script(self, *items: Scripted) -> FakeLLMServer:
        """Queue answers, used in order."""
        self.queue.extend(items)
        return self

    async def __aenter__(self) -> FakeLLMServer:
        app = web.Application()
        app.router.add_post("/v1/chat/completions", self._handle)
        app.router.add_post("/chat/completions", self._handle)
        self._runner = web.AppRunner(app, shutdown_timeout=0.1, handle_signals=False)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        server = site._server
        assert server is not None
        self._port = server.sockets[0].getsockname()[1]  # type: ignore[attr-defined]
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self._runner is not None
        await self._runner.cleanup()

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        body = await request.json()
        self.requests.append(body)
        if not self.queue:
            return web.json_response({"error": {"message": "nothing scripted"}}, status=418)
        item = self.queue.pop(0)
        if item.delay_s:
            await asyncio.sleep(item.delay_s)
        if item.drop:
            assert request.transport is not None
            request.transport.close()
            return web.Response()
        if item.status != 200:
            error = {"error": {"message": f"scripted {item.status}", "type": "scripted"}}
            return web.json_response(error, status=item.status, headers=item.headers)
        return web.json_response(_completion(body, item))


def _completion(body: dict[str, Any], item: Scripted) -> dict[str, Any]:
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": 1_763_735_400,
        "model": body.get("model", "test-model"),
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": item.content},
                "finish_reason": "stop",
            }
        ],
        "usage": {
            "prompt_tokens": item.prompt_tokens,
            "completion_tokens": item.completion_tokens,
            "total_tokens": item.prompt_tokens + item.completion_tokens,
        },
    }
