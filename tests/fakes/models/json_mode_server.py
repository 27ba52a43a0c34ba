"""A fake OpenAI-compatible server with JSON mode only (DeepSeek-like, ``deepseek/…``).

It takes ``response_format`` ``{"type": "json_object"}`` (with the word "json" somewhere in the
messages, as DeepSeek and OpenAI require) or ``text``, and refuses ``json_schema`` with HTTP 400
the way DeepSeek does, although litellm's table says the model supports response schemas: the
gateway has to find out and step down to prompted JSON.
"""

from __future__ import annotations

import json
from typing import ClassVar

from tests.fakes.models.llm_server import FakeLLMServer, JsonDict, Refused

UNAVAILABLE = "This response_format type is unavailable now"


class FakeJsonModeServer(FakeLLMServer):
    """Chat completions that refuse a JSON schema."""

    model_name: ClassVar[str] = "deepseek-chat"
    provider: ClassVar[str] = "deepseek"
    base_path: ClassVar[str] = ""
    nothing_scripted: ClassVar[int] = 400

    async def __aenter__(self) -> FakeJsonModeServer:
        await super().__aenter__()
        return self

    def reply_schema(self, body: JsonDict) -> JsonDict | None:
        """No strict schema: the reply is whatever JSON was scripted."""
        return None

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
