"""An in-memory LLMPort returning scripted replies (for unit tests of the engine)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from pydantic import BaseModel

from domain.llm import ChatMessage, ModelTier

ReplyT = TypeVar("ReplyT", bound=BaseModel)


@dataclass
class LLMCall:
    """One call the engine made."""

    tier: ModelTier
    messages: list[ChatMessage]
    template: str
    template_hash: str
    schema: type[BaseModel] | None
    case_id: str | None


@dataclass
class ScriptedLLM:
    """Pops one scripted item per call: a reply model/dict/str, or an exception to raise."""

    script: list[Any] = field(default_factory=list)
    enabled: bool = True
    calls: list[LLMCall] = field(default_factory=list)

    def then(self, *items: Any) -> ScriptedLLM:
        """Queue more items."""
        self.script.extend(items)
        return self

    def _next(self) -> Any:
        if not self.script:
            raise AssertionError("the engine called the model more often than scripted")
        item = self.script.pop(0)
        if isinstance(item, BaseException):
            raise item
        return item

    async def structured(
        self,
        *,
        tier: ModelTier,
        messages: Sequence[ChatMessage],
        schema: type[ReplyT],
        template: str,
        template_hash: str,
        case_id: str | None = None,
    ) -> ReplyT:
        """The next scripted reply, validated like the real gateway does."""
        self.calls.append(LLMCall(tier, list(messages), template, template_hash, schema, case_id))
        item = self._next()
        data = item.model_dump(mode="json") if isinstance(item, BaseModel) else item
        return schema.model_validate(data)

    async def text(
        self,
        *,
        tier: ModelTier,
        messages: Sequence[ChatMessage],
        template: str,
        template_hash: str,
        case_id: str | None = None,
    ) -> str:
        """The next scripted text."""
        self.calls.append(LLMCall(tier, list(messages), template, template_hash, None, case_id))
        return str(self._next())
