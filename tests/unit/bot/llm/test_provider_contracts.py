"""The gateway against each provider's fake: modes, step-downs, refusals and cut-off replies."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator

import pytest

from bot.llm.modes import Mode
from bot.llm.repair import CUT_OFF_PROMPT
from domain.engine.schemas import ConsultingResponse
from domain.knowledge import Citation, KnowledgeBaseKind, RetrievedChunk
from domain.llm import (
    ChatMessage,
    LLMCallOutcome,
    LLMRefusedError,
    LLMReplyInvalidError,
    ModelTier,
    RefusalCause,
)
from rag.strategies import CASE_EVIDENCE
from rag.synthesis import rewrite_query, synthesize
from tests.fakes.models.anthropic_server import FakeAnthropic
from tests.fakes.models.azure_server import FakeAzureOpenAI
from tests.fakes.models.gateway import GatewayKit, gateway_for
from tests.fakes.models.json_mode_server import FakeJsonModeServer
from tests.fakes.models.llm_server import (
    FakeLLMServer,
    Scripted,
    ScriptedModelServer,
    cut_off,
    filtered,
    refusal,
    reply,
    status,
)
from tests.fakes.models.ollama_server import FakeOllama

GOOD = {"agent_response": "The pool is exhausted.", "state_updates": {}}
MESSAGES = [
    ChatMessage(role="system", content="You are an SRE."),
    ChatMessage(role="user", content="checkout-api returns 502"),
]


async def ask(kit: GatewayKit) -> ConsultingResponse:
    return await kit.gateway.structured(
        tier=ModelTier.MAIN,
        messages=MESSAGES,
        schema=ConsultingResponse,
        template="consulting",
        template_hash="h",
        case_id="case_1",
    )


@pytest.fixture
async def openai() -> AsyncIterator[FakeLLMServer]:
    async with FakeLLMServer() as server:
        yield server


@pytest.fixture
async def anthropic() -> AsyncIterator[FakeAnthropic]:
    async with FakeAnthropic() as server:
        yield server


@pytest.fixture
async def ollama() -> AsyncIterator[FakeOllama]:
    async with FakeOllama() as server:
        yield server


@pytest.fixture
async def json_mode() -> AsyncIterator[FakeJsonModeServer]:
    async with FakeJsonModeServer() as server:
        yield server


async def test_each_provider_gets_the_mode_it_supports(
    openai: FakeLLMServer, anthropic: FakeAnthropic, ollama: FakeOllama
) -> None:
    modes = {
        server.model: gateway_for(server).gateway.mode(server.model)
        for server in (openai, anthropic, ollama)
    }

    assert modes == {
        "openai/test-model": Mode.STRICT_SCHEMA,
        "anthropic/claude-3-5-haiku-20241022": Mode.TOOL,
        "ollama_chat/llama3.1:8b": Mode.STRICT_SCHEMA,
    }
    assert anthropic.requests == []  # deciding a mode asks no provider anything


class FakeVllm(FakeLLMServer):
    """vLLM's OpenAI-compatible server, reached through litellm's ``hosted_vllm/`` route."""

    provider = "hosted_vllm"


class FakeLiteLLMProxy(FakeLLMServer):
    """A LiteLLM proxy in front of any provider (``litellm_proxy/<alias>``)."""

    provider = "litellm_proxy"


@pytest.mark.parametrize("provider", [FakeAzureOpenAI, FakeVllm, FakeLiteLLMProxy])
async def test_openai_compatible_routes_get_the_strict_schema(
    provider: type[FakeLLMServer],
) -> None:
    async with provider() as server:
        kit = gateway_for(server)
        server.script(reply(GOOD))

        assert (await ask(kit)).agent_response == "The pool is exhausted."

    (request,) = server.requests
    assert request["response_format"]["json_schema"]["strict"] is True
    if isinstance(server, FakeAzureOpenAI):
        assert server.deployments == ["test-model"]


async def test_the_anthropic_tool_call_comes_back_as_the_reply(anthropic: FakeAnthropic) -> None:
    kit = gateway_for(anthropic)
    anthropic.script(reply(GOOD))

    assert (await ask(kit)).agent_response == "The pool is exhausted."

    (request,) = anthropic.requests
    assert request["tool_choice"]["type"] == "tool"
    assert request["tools"][0]["input_schema"]["additionalProperties"] is False


async def test_a_refused_schema_steps_down_once_and_the_call_succeeds(
    json_mode: FakeJsonModeServer, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING)
    kit = gateway_for(json_mode)
    json_mode.script(reply(GOOD), reply(GOOD))

    assert (await ask(kit)).agent_response == "The pool is exhausted."
    assert (await ask(kit)).agent_response == "The pool is exhausted."

    kinds = [(r.get("response_format") or {}).get("type") for r in json_mode.requests]
    assert kinds == ["json_schema", "json_object", "json_object"]
    assert "matches this JSON schema" in json_mode.requests[1]["messages"][0]["content"]
    outcomes = [r.outcome for r in kit.recorder.records]
    assert outcomes == [LLMCallOutcome.SCHEMA_REFUSED, LLMCallOutcome.OK, LLMCallOutcome.OK]
    (logged,) = [r.getMessage() for r in caplog.records if "asking it for" in r.getMessage()]
    assert "deepseek/deepseek-chat" in logged
    assert "This response_format type is unavailable now" in logged
    assert kit.gateway.mode(json_mode.model) is Mode.JSON_MODE


async def test_a_model_that_answers_prose_despite_the_format_is_asked_again_with_the_schema(
    ollama: FakeOllama, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING)
    kit = gateway_for(ollama)
    ollama.script(reply("The database pool looks exhausted to me."), reply(GOOD))

    assert (await ask(kit)).agent_response == "The pool is exhausted."

    first, second = ollama.requests
    assert isinstance(first["format"], dict)
    assert second["format"] == "json"
    assert "matches this JSON schema" in second["messages"][0]["content"]
    assert any("answered prose" in r.getMessage() for r in caplog.records)


async def test_a_reply_cut_off_at_the_output_limit_is_asked_again_briefly(
    openai: FakeLLMServer,
) -> None:
    kit = gateway_for(openai)
    openai.script(cut_off(GOOD), reply(GOOD))

    assert (await ask(kit)).agent_response == "The pool is exhausted."

    assert openai.requests[1]["messages"][-1]["content"] == CUT_OFF_PROMPT


async def test_a_reply_cut_off_twice_says_so(anthropic: FakeAnthropic) -> None:
    kit = gateway_for(anthropic)
    anthropic.script(cut_off(GOOD), cut_off(GOOD))

    with pytest.raises(LLMReplyInvalidError) as failed:
        await ask(kit)

    assert failed.value.cut_off


async def test_anthropic_overloaded_is_retried(anthropic: FakeAnthropic) -> None:
    kit = gateway_for(anthropic)
    anthropic.script(status(529), reply(GOOD))

    assert (await ask(kit)).agent_response == "The pool is exhausted."

    assert len(kit.sleeps.waits) == 1
    assert len(anthropic.requests) == 2


REFUSALS = [
    (
        FakeLLMServer,
        status(401, message="Incorrect API key provided: sk-test***"),
        "authentication",
    ),
    (FakeLLMServer, status(403, message="You are not allowed to use this model."), "permission"),
    (FakeLLMServer, refusal(), "declined"),
    (FakeLLMServer, filtered(), "content_filter"),
    (
        FakeLLMServer,
        status(400, message="This model's maximum context length is 8192 tokens."),
        "context_too_long",
    ),
    (FakeAnthropic, status(401, message="invalid x-api-key"), "authentication"),
    (
        FakeAnthropic,
        status(400, message="prompt is too long: 210000 tokens > 200000"),
        "context_too_long",
    ),
    (FakeAnthropic, refusal(), "content_filter"),
    (FakeOllama, status(400, message="unexpected option"), "bad_request"),
    (
        FakeJsonModeServer,
        status(401, message="Authentication Fails (no such user)"),
        "authentication",
    ),
]


@pytest.mark.parametrize(("provider", "scripted", "cause"), REFUSALS)
async def test_a_refusal_names_its_cause_and_is_not_retried(
    provider: type[ScriptedModelServer], scripted: Scripted, cause: str
) -> None:
    async with provider() as server:
        kit = gateway_for(server)
        server.script(scripted, reply(GOOD))

        with pytest.raises(LLMRefusedError) as refused:
            await ask(kit)

    assert refused.value.cause is RefusalCause(cause)
    assert refused.value.model == server.model
    assert kit.sleeps.waits == []
    assert server.queue, "the provider was asked once, not again"


async def test_an_unknown_model_is_model_not_found() -> None:
    async with FakeLLMServer(models={"gpt-4o"}) as server:
        kit = gateway_for(server)
        with pytest.raises(LLMRefusedError) as refused:
            await ask(kit)

    assert refused.value.cause is RefusalCause.MODEL_NOT_FOUND
    happened, todo = refused.value.explain()
    assert happened == "the model provider does not know the model openai/test-model (404)"
    assert todo == "check FM_LLM_MODEL, then run `fm doctor --deep`"


async def test_ollama_without_the_model_pulled_is_model_not_found() -> None:
    async with FakeOllama(models={"qwen2.5:7b"}) as server:
        kit = gateway_for(server)
        with pytest.raises(LLMRefusedError) as refused:
            await ask(kit)

    assert refused.value.cause is RefusalCause.MODEL_NOT_FOUND


class FakeAnthropicNative(FakeAnthropic):
    """A Claude model with native structured output (``output_format``)."""

    model_name = "claude-sonnet-4-5"


TEXT_PROVIDERS = [FakeLLMServer, FakeAnthropic, FakeAnthropicNative, FakeOllama, FakeJsonModeServer]


@pytest.mark.parametrize("provider", TEXT_PROVIDERS)
async def test_knowledge_base_query_rewriting_and_synthesis_work_through_each_provider(
    provider: type[ScriptedModelServer],
) -> None:
    chunk = RetrievedChunk(
        text="14:05:02 ERROR HikariPool-1 - Connection is not available",
        citation=Citation(kb=KnowledgeBaseKind.CASE, source="app.log", line_start=12),
        score=0.9,
    )
    async with provider() as server:
        gateway = gateway_for(server).gateway
        server.script(
            reply("checkout-api HikariPool timeouts since 14:05"),
            reply("The pool ran out of connections at 14:05 [app.log:12]."),
        )
        rewritten = await rewrite_query(
            gateway, "when did they start?", ["checkout-api HikariPool timeouts in app.log"]
        )
        answer = await synthesize(gateway, CASE_EVIDENCE, rewritten, [chunk])

    assert rewritten == "checkout-api HikariPool timeouts since 14:05"
    assert answer == "The pool ran out of connections at 14:05 [app.log:12]."
    assert all("response_format" not in r and "format" not in r for r in server.requests)
