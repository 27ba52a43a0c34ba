"""A fake Anthropic Messages API (``anthropic/…`` with ``api_base``), refusing what Anthropic does.

litellm asks Anthropic for a structured reply in one of two ways: a forced tool call whose input
schema is the reply schema (older models), or the structured-outputs ``output_format`` (models with
native structured output). Both are checked as Anthropic checks them: a key and an API version are
required, ``max_tokens`` is required, a tool needs a valid name and an object input schema, a forced
tool must exist, and an output schema must stay inside the structured-outputs limits. Scripted
replies come back as a ``tool_use`` block or text, with ``stop_reason`` ``max_tokens`` for a reply
cut off and ``refusal`` for one declined; 529 is Anthropic's "overloaded".
"""

from __future__ import annotations

import json
import re
from typing import Any, ClassVar

from aiohttp import web

from tests.fakes.models.llm_server import JsonDict, Refused, Scripted, ScriptedModelServer
from tests.fakes.models.provider_rules import anthropic_output_problem, fill_nullable

TOOL_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    500: "api_error",
    529: "overloaded_error",
}
STOP_REASONS = {"stop": "end_turn", "length": "max_tokens", "content_filter": "refusal"}


class FakeAnthropic(ScriptedModelServer):
    """Anthropic's ``POST /v1/messages``; the default model uses the forced tool call."""

    model_name: ClassVar[str] = "claude-3-5-haiku-20241022"
    provider: ClassVar[str] = "anthropic"
    base_path: ClassVar[str] = ""

    async def __aenter__(self) -> FakeAnthropic:
        await super().__aenter__()
        return self

    def routes(self, app: web.Application) -> None:
        app.router.add_post("/v1/messages", self._handle)

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        body = await self.keep(request)
        try:
            self.check(body, self.headers[-1])
        except Refused as refused:
            return anthropic_error(refused.status, refused.message)
        item = await self.next_item()
        if item is None:
            return anthropic_error(400, "nothing scripted")
        if item.drop:
            assert request.transport is not None
            request.transport.close()
            return web.Response()
        if item.status != 200:
            default = "Overloaded" if item.status == 529 else f"scripted {item.status}"
            return anthropic_error(item.status, item.message or default, headers=item.headers)
        return web.json_response(message(body, item))

    def check(self, body: JsonDict, headers: dict[str, str]) -> None:
        """Raise Refused for a request Anthropic would refuse."""
        if not headers.get("x-api-key"):
            raise Refused(401, "x-api-key header is required")
        if not headers.get("anthropic-version"):
            raise Refused(400, "anthropic-version: header is required")
        model = str(body.get("model", ""))
        if not self.known(model):
            raise Refused(404, f"model: {model}")
        if not isinstance(body.get("max_tokens"), int):
            raise Refused(400, "max_tokens: Field required")
        _check_tools(body)
        output = body.get("output_format")
        if output is not None:
            if "structured-outputs" not in headers.get("anthropic-beta", ""):
                raise Refused(400, "output_format: Extra inputs are not permitted")
            problem = anthropic_output_problem(output.get("schema"))
            if problem:
                raise Refused(400, problem)


def _check_tools(body: JsonDict) -> None:
    tools = body.get("tools") or []
    for index, tool in enumerate(tools):
        if not TOOL_NAME.match(str(tool.get("name", ""))):
            raise Refused(
                400, f"tools.{index}.name: String should match pattern '^[a-zA-Z0-9_-]{{1,64}}$'"
            )
        schema = tool.get("input_schema")
        if not isinstance(schema, dict) or schema.get("type") != "object":
            raise Refused(400, f"tools.{index}.input_schema.type: Input should be 'object'")
    choice = body.get("tool_choice") or {}
    if choice.get("type") == "tool" and choice.get("name") not in {t.get("name") for t in tools}:
        raise Refused(400, f"tool_choice.name: no tool named {choice.get('name')!r}")


def anthropic_error(code: int, text: str, *, headers: dict[str, str] | None = None) -> web.Response:
    """An error as Anthropic sends it."""
    kind = ERROR_TYPES.get(code, "api_error")
    body = {"type": "error", "error": {"type": kind, "message": text}, "request_id": "req_fake"}
    return web.json_response(body, status=code, headers=headers or {})


def message(body: JsonDict, item: Scripted) -> JsonDict:
    """A Messages API reply: a forced tool's ``tool_use`` block, or text."""
    stop = "refusal" if item.refusal is not None else STOP_REASONS.get(item.finish, "end_turn")
    content = [_block(body, item)]
    if content[0]["type"] == "tool_use" and stop == "end_turn":
        stop = "tool_use"
    return {
        "id": "msg_fake",
        "type": "message",
        "role": "assistant",
        "model": body.get("model"),
        "content": content,
        "stop_reason": stop,
        "stop_sequence": None,
        "usage": {"input_tokens": item.prompt_tokens, "output_tokens": item.completion_tokens},
    }


def _block(body: JsonDict, item: Scripted) -> JsonDict:
    text = item.refusal if item.refusal is not None else item.content or ""
    forced = (body.get("tool_choice") or {}).get("name")
    tool = next((t for t in body.get("tools") or [] if t.get("name") == forced), None)
    value = _json_object(text) if item.refusal is None and item.finish == "stop" else None
    if tool is not None and value is not None:
        filled = fill_nullable(value, tool["input_schema"])
        return {"type": "tool_use", "id": "toolu_fake", "name": forced, "input": filled}
    output = body.get("output_format")
    if output is not None and value is not None:
        text = json.dumps(fill_nullable(value, output.get("schema")))
    return {"type": "text", "text": text}


def _json_object(text: str) -> Any:
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        return None
    return value if isinstance(value, dict) else None
