"""A fake OpenAI-compatible server with JSON mode only (DeepSeek-like, ``deepseek/…``).

It takes ``response_format`` ``{"type": "json_object"}`` (with the word "json" somewhere in the
messages, as DeepSeek and OpenAI require) or ``text``, and refuses ``json_schema`` with HTTP 400
the way DeepSeek does, although litellm's table says the model supports response schemas: the
gateway has to find out and step down to prompted JSON.
"""

from __future__ import annotations

import json
from typing import ClassVar

from aiohttp import web

from tests.fakes.models.llm_server import (
    JsonDict,
    Refused,
    ScriptedModelServer,
    completion,
    openai_error,
)

UNAVAILABLE = "This response_format type is unavailable now"


class FakeJsonModeServer(ScriptedModelServer):
    """Chat completions that refuse a JSON schema."""

    model_name: ClassVar[str] = "deepseek-chat"
    provider: ClassVar[str] = "deepseek"
    base_path: ClassVar[str] = ""

    async def __aenter__(self) -> FakeJsonModeServer:
        await super().__aenter__()
        return self

    def routes(self, app: web.Application) -> None:
        app.router.add_post("/chat/completions", self._handle)
        app.router.add_post("/v1/chat/completions", self._handle)

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        body = await self.keep(request)
        try:
            self.check(body)
        except Refused as refused:
            return openai_error(refused.status, refused.message, **refused.fields)
        item = await self.next_item()
        if item is None:
            return openai_error(400, "nothing scripted")
        if item.drop:
            assert request.transport is not None
            request.transport.close()
            return web.Response()
        if item.status != 200:
            message = item.message or f"scripted {item.status}"
            return openai_error(item.status, message, headers=item.headers)
        return web.json_response(completion(body, item, None))

    def check(self, body: JsonDict) -> None:
        """Raise Refused for a request a JSON-mode-only server refuses."""
        model = str(body.get("model", ""))
        if not self.known(model):
            raise Refused(400, f"Model Not Exist: {model}")
        kind = (body.get("response_format") or {}).get("type", "text")
        if kind not in {"text", "json_object"}:
            raise Refused(400, UNAVAILABLE)
        if kind == "json_object" and "json" not in json.dumps(body.get("messages", [])).lower():
            raise Refused(
                400, "Prompt must contain the word 'json' in some form to use 'response_format'"
            )
