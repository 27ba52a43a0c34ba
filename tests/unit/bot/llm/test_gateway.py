"""The litellm gateway against a fake OpenAI-compatible server over real HTTP."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from bot.llm.config import GatewayConfig
from bot.llm.gateway import LiteLLMGateway
from bot.llm.modes import Mode, request_options
from bot.llm.repair import REPAIR_ECHO_CHARS, REPAIR_PROMPT
from bot.llm.window import TRIM_MARK
from domain.llm import (
    ChatMessage,
    ImagePart,
    LLMCallOutcome,
    LLMCallRecord,
    LLMReplyInvalidError,
    LLMUnavailableError,
    MemoryCallRecorder,
    ModelTier,
)
from tests.fakes.clock import FakeClock
from tests.fakes.models.gateway import gateway_for
from tests.fakes.models.llm_server import (
    FakeLLMServer,
    malformed,
    reply,
    schema_violation,
)
from tests.unit.bot.llm.verdict import GOOD, MESSAGES, Verdict, ask


async def test_a_valid_reply_is_validated_and_recorded(server: FakeLLMServer) -> None:
    kit = gateway_for(server)
    server.script(reply(GOOD))

    assert await ask(kit.gateway) == GOOD

    request = server.requests[0]
    assert request["model"] == "test-model"
    assert request["messages"] == [m.model_dump(exclude={"images"}) for m in MESSAGES]
    schema = request["response_format"]["json_schema"]
    assert schema["name"] == "Verdict"
    assert schema["schema"]["properties"]["answer"]["description"] == "What the model concluded."
    (record,) = kit.recorder.records
    assert record.outcome is LLMCallOutcome.OK
    assert (record.template, record.template_hash, record.case_id) == ("test", "abc123", "case_1")
    assert (record.prompt_tokens, record.completion_tokens) == (120, 40)
    assert record.cost_usd is None  # an unknown model has no price
    assert record.model == "openai/test-model"


async def test_json_in_a_markdown_fence_is_accepted(server: FakeLLMServer) -> None:
    kit = gateway_for(server)
    server.script(reply(f"```json\n{GOOD.model_dump_json()}\n```"))

    assert await ask(kit.gateway) == GOOD


async def test_an_invalid_reply_gets_one_repair_attempt_showing_its_errors(
    server: FakeLLMServer,
) -> None:
    kit = gateway_for(server)
    server.script(schema_violation(), reply(GOOD))

    assert await ask(kit.gateway) == GOOD

    repair = server.requests[1]["messages"]
    assert repair[-2]["role"] == "assistant"
    assert '"status": "resolved"' in repair[-2]["content"]
    assert repair[-1]["role"] == "user"
    assert repair[-1]["content"].startswith(REPAIR_PROMPT.split("{")[0])
    assert "- answer: Field required" in repair[-1]["content"]
    assert "- status: Extra inputs are not permitted" in repair[-1]["content"]
    outcomes = [r.outcome for r in kit.recorder.records]
    assert outcomes == [LLMCallOutcome.INVALID, LLMCallOutcome.REPAIRED]


async def test_a_runaway_reply_is_not_sent_back_whole_for_its_repair(
    server: FakeLLMServer,
) -> None:
    kit = gateway_for(server)
    runaway = json.dumps({"answer": "the pool " * 25_000, "status": "resolved"})
    server.script(reply(runaway), reply(GOOD))

    assert await ask(kit.gateway) == GOOD

    echoed = server.requests[1]["messages"][-2]["content"]
    assert len(runaway) > 200_000
    assert len(echoed) < REPAIR_ECHO_CHARS + 100
    assert echoed.startswith(runaway[:100])
    assert echoed.endswith(runaway[-100:])
    assert "characters of this reply left out" in echoed


async def test_garbage_twice_is_an_invalid_reply_error(server: FakeLLMServer) -> None:
    kit = gateway_for(server)
    server.script(malformed(), schema_violation())

    with pytest.raises(LLMReplyInvalidError):
        await ask(kit.gateway)

    assert len(server.requests) == 2
    assert [r.outcome for r in kit.recorder.records] == [LLMCallOutcome.INVALID] * 2


async def test_text_replies_need_no_schema(server: FakeLLMServer) -> None:
    kit = gateway_for(server)
    server.script(reply("# Runbook\n"))

    text = await kit.gateway.text(
        tier=ModelTier.MAIN, messages=MESSAGES, template="runbook", template_hash="h"
    )

    assert text == "# Runbook\n"
    assert "response_format" not in server.requests[0]
    assert kit.recorder.records[0].outcome is LLMCallOutcome.OK


async def test_each_call_sends_the_portable_schema_and_its_own_copy(
    server: FakeLLMServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    import litellm

    kit = gateway_for(server)
    server.script(reply(GOOD), reply(GOOD))
    given: list[object] = []
    acompletion = litellm.acompletion

    async def provider_that_edits_its_argument(**kwargs: Any) -> Any:
        given.append(copy.deepcopy(kwargs["response_format"]))
        kwargs["response_format"]["json_schema"]["strict"] = False
        return await acompletion(**kwargs)

    monkeypatch.setattr(litellm, "acompletion", provider_that_edits_its_argument)
    await ask(kit.gateway)
    await ask(kit.gateway)

    assert given == [request_options(Mode.STRICT_SCHEMA, Verdict)["response_format"]] * 2


async def test_without_a_model_the_gateway_is_disabled() -> None:
    gateway = LiteLLMGateway(GatewayConfig(model=None), recorder=MemoryCallRecorder())

    assert not gateway.enabled
    with pytest.raises(LLMUnavailableError):
        await ask(gateway)


async def test_records_take_their_time_from_the_clock(server: FakeLLMServer) -> None:
    clock = FakeClock()
    recorder = MemoryCallRecorder()
    config = gateway_for(server).config
    gateway = LiteLLMGateway(config, recorder=recorder, clock=clock)
    server.script(reply(GOOD))

    await ask(gateway)

    assert recorder.records[0].at == clock.now()


class BrokenRecorder:
    """A recorder whose database is down."""

    async def record(self, record: LLMCallRecord) -> None:
        raise ConnectionError("database unavailable")


async def test_a_record_that_cannot_be_kept_does_not_lose_the_reply(
    server: FakeLLMServer, caplog: pytest.LogCaptureFixture
) -> None:
    config = gateway_for(server).config
    gateway = LiteLLMGateway(config, recorder=BrokenRecorder())
    server.script(reply(GOOD))

    assert await ask(gateway) is not None
    assert "could not record an LLM call" in caplog.text


async def test_long_conversations_are_trimmed_oldest_first(server: FakeLLMServer) -> None:
    kit = gateway_for(server, default_context_window=400, output_reserve_tokens=100)
    history = [ChatMessage(role="user", content=f"turn {i}: " + "words " * 60) for i in range(6)]
    newest = ChatMessage(role="user", content="the newest input")
    messages = [MESSAGES[0], *history, newest]
    server.script(reply(GOOD))

    await kit.gateway.structured(
        tier=ModelTier.MAIN, messages=messages, schema=Verdict, template="t", template_hash="h"
    )

    sent = server.requests[0]["messages"]
    assert sent[0]["content"] == "You are a test."
    assert sent[-1]["content"].startswith("the newest input\nSystem note: ")
    assert "left out to fit the model's context window" in sent[-1]["content"]
    assert 1 <= len(sent) - 2 < len(history)
    assert sent[1]["content"].startswith(f"turn {6 - (len(sent) - 2)}:")


async def test_an_oversized_newest_input_is_shortened_in_the_middle(
    server: FakeLLMServer,
) -> None:
    kit = gateway_for(server, default_context_window=400, output_reserve_tokens=100)
    huge = "START " + "line of log output " * 400 + " END"
    server.script(reply(GOOD))

    await kit.gateway.structured(
        tier=ModelTier.MAIN,
        messages=[MESSAGES[0], ChatMessage(role="user", content=huge)],
        schema=Verdict,
        template="t",
        template_hash="h",
    )

    content = server.requests[0]["messages"][-1]["content"]
    assert content.startswith("START")
    assert content.endswith("END")
    assert TRIM_MARK in content
    assert len(content) < len(huge) / 2


async def test_the_context_window_is_looked_up_once_per_model(server: FakeLLMServer) -> None:
    kit = gateway_for(server)
    server.script(reply(GOOD), reply(GOOD))

    await ask(kit.gateway)
    await ask(kit.gateway)

    assert list(kit.gateway._windows) == ["openai/test-model"]


PNG = (
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4"
    "nGNgYGD4DwABBAEAHnOcQAAAAABJRU5ErkJggg=="
)
"""A 1×1 PNG in base64."""
WITH_IMAGE = [
    MESSAGES[0],
    ChatMessage(
        role="user",
        content="What does the panel show?",
        images=(ImagePart(name="panel.png", media_type="image/png", data=PNG),),
    ),
]


async def test_images_reach_a_model_that_takes_them_as_openai_content_parts(
    server: FakeLLMServer,
) -> None:
    kit = gateway_for(server)
    kit.gateway._vision[server.model] = True  # as litellm's table would say
    server.script(reply(GOOD))

    await kit.gateway.structured(
        tier=ModelTier.MAIN,
        messages=WITH_IMAGE,
        schema=Verdict,
        template="test",
        template_hash="abc123",
        case_id="case_1",
    )

    assert server.requests[0]["messages"][-1]["content"] == [
        {"type": "text", "text": "What does the panel show?"},
        {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{PNG}"}},
    ]


async def test_images_are_left_out_for_a_model_that_does_not_take_them(
    server: FakeLLMServer,
) -> None:
    kit = gateway_for(server)
    server.script(reply(GOOD))

    assert not kit.gateway.sees_images(), "litellm does not know the fake model takes images"
    await kit.gateway.structured(
        tier=ModelTier.MAIN,
        messages=WITH_IMAGE,
        schema=Verdict,
        template="test",
        template_hash="abc123",
        case_id="case_1",
    )

    assert server.requests[0]["messages"][-1]["content"] == "What does the panel show?"
