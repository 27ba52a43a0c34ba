"""How each model is asked for a structured reply, and the step down when a provider refuses one.

- strict schema: ``response_format`` carries the strict JSON schema; litellm hands it to OpenAI and
  Azure as is, to Gemini as its response schema, to Ollama as ``format`` and to Anthropic models
  with native structured output as their output format.
- tool call: the same schema, which litellm turns into a forced tool call (older Anthropic models,
  Bedrock).
- prompted JSON: the schema is written into the prompt, with ``response_format: json_object``
  (JSON mode) where the provider takes it, or with nothing else at all.

A model starts in the best mode litellm says it supports. When its provider refuses the schema
(HTTP 400 naming it) or its model answers prose despite it, the model steps down once, for the rest
of the process, and the call is made again: the turn still succeeds.
"""

from __future__ import annotations

import logging
from enum import StrEnum
from typing import Any

from pydantic import BaseModel

from bot.llm.schema import wire_schema, wire_schema_text
from bot.llm.window import Message

logger = logging.getLogger(__name__)

SCHEMA_PROMPT = (
    "Reply with only one JSON object (no prose around it, no code fence) that matches this JSON "
    "schema exactly; every property is required, use null where a value does not apply:\n{schema}"
)
TRANSLATED = frozenset(
    {"anthropic", "bedrock", "ollama", "ollama_chat", "gemini", "vertex_ai", "vertex_ai_beta"}
)
"""Providers whose own schema mechanism litellm fills from a JSON-schema ``response_format``, even
for models its capability table does not list (Ollama's ``format``, Gemini's response schema,
Anthropic's forced tool call)."""
TOOL_PROVIDERS = frozenset({"anthropic", "bedrock"})
"""Where that mechanism is a forced tool call unless the model has native structured output."""


class Mode(StrEnum):
    """How a structured reply is asked for (what `fm doctor --deep` prints)."""

    STRICT_SCHEMA = "strict schema"
    TOOL = "tool call"
    JSON_MODE = "prompted JSON (JSON mode)"
    PROMPTED = "prompted JSON"

    @property
    def sends_schema(self) -> bool:
        """The provider receives the schema itself (not in the prompt)."""
        return self in {Mode.STRICT_SCHEMA, Mode.TOOL}


STEP_DOWN = {
    Mode.STRICT_SCHEMA: Mode.JSON_MODE,
    Mode.TOOL: Mode.JSON_MODE,
    Mode.JSON_MODE: Mode.PROMPTED,
}


def initial_mode(litellm: Any, model: str) -> Mode:
    """The best mode litellm's capability lookups promise for ``model``.

    A model litellm does not know (a local or self-hosted one behind an OpenAI-compatible URL)
    starts with the strict schema, which most such servers take; one that refuses steps down.
    """
    provider = _provider(litellm, model)
    schema = bool(litellm.supports_response_schema(model=model))
    if provider in TOOL_PROVIDERS and not schema:
        return Mode.TOOL
    if schema or provider in TRANSLATED or not _known(litellm, model):
        return Mode.STRICT_SCHEMA
    return Mode.JSON_MODE if _takes_response_format(litellm, model) else Mode.PROMPTED


def request_options(mode: Mode, schema: type[BaseModel]) -> dict[str, Any]:
    """What the call carries besides the messages, in ``mode``."""
    if mode.sends_schema:
        strict = {"name": schema.__name__, "schema": wire_schema(schema), "strict": True}
        return {"response_format": {"type": "json_schema", "json_schema": strict}}
    if mode is Mode.JSON_MODE:
        return {"response_format": {"type": "json_object"}}
    return {}


def with_schema_prompt(messages: list[Message], schema: type[BaseModel]) -> list[Message]:
    """The messages with the schema written into the system prompt (prompted modes)."""
    instruction = SCHEMA_PROMPT.format(schema=wire_schema_text(schema))
    if messages and messages[0]["role"] == "system":
        first = {**messages[0], "content": f"{messages[0]['content']}\n\n{instruction}"}
        return [first, *messages[1:]]
    return [{"role": "system", "content": instruction}, *messages]


class ModeBook:
    """Each model's current mode, remembered for the process; steps down at most once per mode."""

    def __init__(self, litellm: Any) -> None:
        self._litellm = litellm
        self._modes: dict[str, Mode] = {}

    def mode(self, model: str) -> Mode:
        """The mode to ask ``model`` in now."""
        if model not in self._modes:
            self._modes[model] = initial_mode(self._litellm, model)
        return self._modes[model]

    def step_down(self, model: str, tried: Mode, reason: str) -> bool:
        """Use the next mode for ``model`` after ``tried`` failed; False when none is left.

        Two turns refused at once step down once: the second finds the mode already changed.
        """
        current = self.mode(model)
        if current is not tried:
            return True
        lower = STEP_DOWN.get(tried)
        if lower is None:
            return False
        self._modes[model] = lower
        logger.warning(
            "%s refused structured replies as %s (%s); asking it for %s from now on",
            model,
            tried.value,
            reason,
            lower.value,
            extra={"model": model, "mode": lower.value},
        )
        return True


def _provider(litellm: Any, model: str) -> str:
    try:
        return str(litellm.get_llm_provider(model)[1])
    except Exception:  # litellm raises several types for names it cannot place
        return ""


def _known(litellm: Any, model: str) -> bool:
    try:
        litellm.get_model_info(model)
    except Exception:  # unmapped models raise; several types
        return False
    return True


def _takes_response_format(litellm: Any, model: str) -> bool:
    try:
        params = litellm.get_supported_openai_params(model=model) or []
    except Exception:  # unknown providers raise
        return False
    return "response_format" in params
