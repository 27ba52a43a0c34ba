"""The scripted investigators answer only in the engine's reply schemas, and record every call."""

from __future__ import annotations

import pytest
from pydantic import BaseModel

from domain.engine.schemas import TerminalResponse
from domain.llm import ChatMessage, MemoryCallRecorder, ModelTier
from evals.scenario import load_scenarios
from evals.scripted.investigators import ScriptedInvestigator, Style

(SCENARIO,) = load_scenarios(only=["db-pool-cut"])
ASK = [ChatMessage(role="system", content="x" * 400), ChatMessage(role="user", content="hi")]


async def test_a_finished_case_gets_a_terminal_reply_and_the_call_is_recorded() -> None:
    recorder = MemoryCallRecorder()
    llm = ScriptedInvestigator(SCENARIO, Style.COMPETENT, recorder)
    reply = await llm.structured(
        tier=ModelTier.MAIN,
        messages=ASK,
        schema=TerminalResponse,
        template="terminal",
        template_hash="h1",
        case_id="c1",
    )
    assert reply.agent_response
    (record,) = recorder.records
    assert (record.model, record.template, record.case_id) == (
        "scripted/competent",
        "terminal",
        "c1",
    )
    assert record.prompt_tokens == 100


async def test_a_document_request_gets_markdown_about_the_scenario() -> None:
    recorder = MemoryCallRecorder()
    llm = ScriptedInvestigator(SCENARIO, Style.POOR, recorder)
    text = await llm.text(tier=ModelTier.MAIN, messages=ASK, template="runbook", template_hash="h")
    assert text.startswith(f"# {SCENARIO.title}")
    assert recorder.records[0].model == "scripted/poor"


async def test_a_schema_the_investigators_do_not_know_is_refused() -> None:
    class Other(BaseModel):
        x: int

    llm = ScriptedInvestigator(SCENARIO, Style.COMPETENT, MemoryCallRecorder())
    with pytest.raises(TypeError, match="no scripted reply for Other"):
        await llm.structured(
            tier=ModelTier.MAIN, messages=ASK, schema=Other, template="t", template_hash="h"
        )
