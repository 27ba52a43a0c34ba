"""Scripted investigators: in-process LLMPorts that play one scenario well or badly.

They let `make eval` and CI run the whole harness without a model, and prove that the scoreboard
tells a competent investigation from a poor one. Every call is recorded like the gateway records
a real one (tokens estimated from the text, no cost), so the cost columns are exercised too.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from enum import StrEnum
from typing import TypeVar

from pydantic import BaseModel

from domain.engine.schemas import ConsultingResponse, InvestigationResponse, TerminalResponse
from domain.engine.second_look import SecondLookReply
from domain.llm import ChatMessage, LLMCallOutcome, LLMCallRecord, LLMCallRecorder, ModelTier
from evals.scenario import Scenario
from evals.scripted.playbooks import Competent, Poor, consulting
from evals.scripted.prompt_reading import read_prompt
from evals.scripted.second_look import check

ReplyT = TypeVar("ReplyT", bound=BaseModel)
CHARS_PER_TOKEN = 4
"""A rough English average; enough to exercise the token columns without a tokenizer."""


class Style(StrEnum):
    """Which investigator plays."""

    COMPETENT = "competent"
    POOR = "poor"


class ScriptedInvestigator:
    """An LLMPort answering the engine's prompts from the scenario, in one style."""

    def __init__(self, scenario: Scenario, style: Style, recorder: LLMCallRecorder) -> None:
        self.scenario = scenario
        self.style = style
        self._recorder = recorder
        self._play = Competent(scenario) if style is Style.COMPETENT else Poor(scenario)

    @property
    def enabled(self) -> bool:
        """Always on: it plays the model."""
        return True

    @property
    def model(self) -> str:
        """The name its call records carry."""
        return f"scripted/{self.style.value}"

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
        """The reply for the schema the engine asks for, validated like the gateway does."""
        view = read_prompt(template, messages)
        reply: BaseModel
        if schema is ConsultingResponse:
            reply = consulting(self.scenario)
        elif schema is InvestigationResponse:
            reply = self._play.investigate(view)
        elif schema is TerminalResponse:
            reply = TerminalResponse(agent_response="The case is finished.")
        elif schema is SecondLookReply:
            reply = check(self.scenario, messages)
        else:
            raise TypeError(f"no scripted reply for {schema.__name__}")
        body = reply.model_dump_json()
        await self._record(messages, body, template, template_hash, case_id)
        return schema.model_validate(json.loads(body))

    async def text(
        self,
        *,
        tier: ModelTier,
        messages: Sequence[ChatMessage],
        template: str,
        template_hash: str,
        case_id: str | None = None,
    ) -> str:
        """Documents the engineer asks for: a stub (the scripted runs decline them anyway)."""
        body = f"# {self.scenario.title}\n\n{self.scenario.truth.statement}\n"
        await self._record(messages, body, template, template_hash, case_id)
        return body

    async def _record(
        self,
        messages: Sequence[ChatMessage],
        body: str,
        template: str,
        template_hash: str,
        case_id: str | None,
    ) -> None:
        sent = sum(len(m.content) for m in messages)
        await self._recorder.record(
            LLMCallRecord(
                case_id=case_id,
                model=self.model,
                template=template,
                template_hash=template_hash,
                latency_ms=0,
                prompt_tokens=sent // CHARS_PER_TOKEN,
                completion_tokens=len(body) // CHARS_PER_TOKEN,
                cost_usd=0.0,
                outcome=LLMCallOutcome.OK,
            )
        )


def scripted(style: Style, recorder: LLMCallRecorder) -> Callable[[Scenario], ScriptedInvestigator]:
    """A fresh scripted investigator per scenario, all recording into ``recorder``."""
    return lambda scenario: ScriptedInvestigator(scenario, style, recorder)
