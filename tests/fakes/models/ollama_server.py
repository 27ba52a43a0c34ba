"""A fake Ollama server (``ollama_chat/…`` with ``api_base``), refusing what Ollama does.

``POST /api/chat`` takes ``format`` as ``"json"`` or a JSON schema object; anything else, an
unknown model (404, "try pulling it first") or a streaming request the fake cannot serve is
refused with Ollama's ``{"error": …}`` body. ``POST /api/show`` describes the model (its context
length), as litellm may ask. A script may answer prose whatever the format asked: a small local
model that ignores the schema.
"""

from __future__ import annotations

import json
from typing import Any, ClassVar

from aiohttp import web

from tests.fakes.models.llm_server import JsonDict, Refused, Scripted, ScriptedModelServer
from tests.fakes.models.provider_rules import fill_nullable

CONTEXT_LENGTH = 32768


class FakeOllama(ScriptedModelServer):
    """Ollama's chat API."""

    model_name: ClassVar[str] = "llama3.1:8b"
    provider: ClassVar[str] = "ollama_chat"
    base_path: ClassVar[str] = ""

    async def __aenter__(self) -> FakeOllama:
        await super().__aenter__()
        return self

    def routes(self, app: web.Application) -> None:
        app.router.add_post("/api/chat", self._handle)
        app.router.add_post("/api/show", self._show)

    async def _show(self, request: web.Request) -> web.Response:
        body = await request.json()
        name = str(body.get("model") or body.get("name") or "")
        if not self.known(name):
            return web.json_response({"error": f"model '{name}' not found"}, status=404)
        info = {"general.architecture": "llama", "llama.context_length": CONTEXT_LENGTH}
        return web.json_response({"model_info": info, "details": {"family": "llama"}})

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        body = await self.keep(request)
        try:
            self.check(body)
        except Refused as refused:
            return web.json_response({"error": refused.message}, status=refused.status)
        item = await self.next_item()
        if item is None:
            return web.json_response({"error": "nothing scripted"}, status=500)
        if item.drop:
            assert request.transport is not None
            request.transport.close()
            return web.Response()
        if item.status != 200:
            error = {"error": item.message or f"scripted {item.status}"}
            return web.json_response(error, status=item.status, headers=item.headers)
        return web.json_response(chat(body, item))

    def check(self, body: JsonDict) -> None:
        """Raise Refused for a request Ollama would refuse."""
        model = str(body.get("model", ""))
        if not self.known(model):
            raise Refused(404, f'model "{model}" not found, try pulling it first')
        if body.get("stream", True):
            raise Refused(400, "this fake serves only stream=false")
        wanted = body.get("format")
        if wanted not in (None, "", "json") and not (
            isinstance(wanted, dict) and wanted.get("type") == "object"
        ):
            raise Refused(400, f"invalid format: {json.dumps(wanted)[:80]}")


def chat(body: JsonDict, item: Scripted) -> JsonDict:
    """A non-streaming chat reply as Ollama sends it."""
    content = item.refusal if item.refusal is not None else item.content or ""
    schema = body.get("format")
    if isinstance(schema, dict) and item.finish == "stop":
        content = _filled(content, schema)
    return {
        "model": body.get("model"),
        "created_at": "2026-11-21T14:30:00.000000Z",
        "message": {"role": "assistant", "content": content},
        "done": True,
        "done_reason": "length" if item.finish == "length" else "stop",
        "total_duration": 1_000_000,
        "prompt_eval_count": item.prompt_tokens,
        "eval_count": item.completion_tokens,
    }


def _filled(content: str, schema: dict[str, Any]) -> str:
    try:
        value = json.loads(content)
    except json.JSONDecodeError:
        return content  # the model ignored the format and answered prose
    return json.dumps(fill_nullable(value, schema))
