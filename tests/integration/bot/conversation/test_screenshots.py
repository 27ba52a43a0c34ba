"""Screenshots shared in a case thread: read by a model that takes images, said once otherwise."""

from __future__ import annotations

import base64
import struct
import zlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any, ClassVar

import aiohttp
import litellm
import pytest

from domain.investigation.evidence import EvidenceSourceType
from domain.lifecycle.status import CaseStatus
from domain.records import FileStatus
from tests.fakes.knowledge import FakeKnowledge
from tests.fakes.models.llm_server import FakeLLMServer
from tests.fakes.slack.server import FakeSlack
from tests.integration.bot.harness import BotHarness, text_of, with_buttons
from tests.integration.bot.replies import chat_reply, statement_reply
from tests.integration.engine.thread import json_reply

NO_VISION = (
    "I can't read images with the configured model; paste the panel's query or the error text."
)
READ = "The p99 latency panel jumps from 120 ms to 2.4 s at 14:05 (grafana.png (image))."


def tiny_png() -> bytes:
    """A valid 2×2 PNG (a screenshot's format, without shipping one)."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    rows = b"".join(b"\x00" + b"\xff\x00\x00" * 2 for _ in range(2))
    header = struct.pack(">IIBBBBB", 2, 2, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(rows))
        + chunk(b"IEND", b"")
    )


class VisionLLMServer(FakeLLMServer):
    """OpenAI with a model litellm's table says takes images."""

    model_name: ClassVar[str] = "vision-test-model"


class TextOnlyLLMServer(FakeLLMServer):
    """OpenAI with a model that refuses image parts (litellm does not know it takes images)."""

    sees_images: ClassVar[bool] = False


@pytest.fixture
async def vision() -> AsyncIterator[FakeLLMServer]:
    async with VisionLLMServer() as server:
        litellm.register_model(
            {server.model: {"litellm_provider": "openai", "mode": "chat", "supports_vision": True}}
        )
        yield server


@pytest.fixture
async def text_only() -> AsyncIterator[FakeLLMServer]:
    async with TextOnlyLLMServer() as server:
        yield server


async def started(
    slack: FakeSlack, server: FakeLLMServer, tmp_path: Path
) -> AsyncIterator[BotHarness]:
    harness = await BotHarness.start(slack, server, tmp_path, knowledge=FakeKnowledge())
    try:
        yield harness
    finally:
        await harness.stop()


async def investigating(bot: BotHarness) -> str:
    thread_ts = await bot.mention("checkout is slow", statement_reply())
    (question,) = with_buttons(bot.bot_messages(thread_ts), "fm_answer")
    bot.llm.script(chat_reply("Share the latency panel, please."))
    await bot.click(question, decision="yes")
    return thread_ts


async def share_screenshot(bot: BotHarness, thread_ts: str, name: str, *replies: Any) -> str:
    shared = bot.slack.add_file(name, tiny_png(), mimetype="image/png", filetype="png")
    return await bot.reply(thread_ts, "the latency panel", *replies, files=[shared])


def image_parts(body: dict[str, Any]) -> list[dict[str, Any]]:
    content = body["messages"][-1]["content"]
    return [p for p in content if p["type"] == "image_url"] if isinstance(content, list) else []


async def test_a_screenshot_is_sent_to_a_model_that_takes_images_and_cited_as_evidence(
    slack: FakeSlack, vision: FakeLLMServer, tmp_path: Path
) -> None:
    async for bot in started(slack, vision, tmp_path):
        thread_ts = await investigating(bot)
        case = await bot.case(thread_ts)
        shared = bot.slack.add_file("grafana.png", tiny_png(), mimetype="image/png")
        evidence = {
            "ref": "E1",
            "summary": "p99 latency 120 ms → 2.4 s at 14:05",
            "source_ref": f"{shared['id']}@{case.case_id}",
        }
        reply = json_reply(READ, citations=["grafana.png (image)"], evidence_to_add=[evidence])
        await bot.reply(thread_ts, "the latency panel", reply, files=[shared])

        (part,) = image_parts(bot.llm.requests[-1])
        encoded = base64.b64encode(tiny_png()).decode()
        assert part["image_url"]["url"] == f"data:image/png;base64,{encoded}"
        assert (
            'cite as "grafana.png (image)"'
            in bot.llm.requests[-1]["messages"][-1]["content"][0]["text"]
        )
        answer = bot.bot_messages(thread_ts)[-1]
        assert "grafana.png (image)" in text_of(answer), "cited in the Sources line"
        assert "read as an image by the model" in text_of(answer)
        (stored,) = await bot.runtime.repositories.files.list_for_case(case.case_id)
        assert (stored.status, stored.content_type) == (FileStatus.INGESTED, "image/png")
        saved = await bot.case(thread_ts)
        assert saved.status is CaseStatus.INVESTIGATING
        (kept,) = saved.evidence
        assert kept.source_type is EvidenceSourceType.SCREENSHOT


async def test_with_a_text_only_model_the_bot_says_so_once_and_sends_no_image(
    slack: FakeSlack, text_only: FakeLLMServer, tmp_path: Path
) -> None:
    async for bot in started(slack, text_only, tmp_path):
        thread_ts = await bot.mention("checkout is slow", statement_reply())
        await share_screenshot(bot, thread_ts, "one.png", chat_reply("Paste the query, please."))
        await share_screenshot(bot, thread_ts, "two.png", chat_reply("Still need the query."))

        said = [m for m in bot.bot_messages(thread_ts) if NO_VISION in text_of(m)]
        assert len(said) == 1, "once per case"
        assert all(image_parts(body) == [] for body in bot.llm.requests)
        case = await bot.case(thread_ts)
        stored = await bot.runtime.repositories.files.list_for_case(case.case_id)
        assert {f.status for f in stored} == {FileStatus.REFUSED}, "kept with the case, unread"


@pytest.mark.parametrize(
    ("url", "code"),
    [
        ("data:;base64,iVBORw0KGgo=", "invalid_image_format"),
        ("data:image/png,not-base64", "invalid_value"),
        ("data:image/bmp;base64,Qk0=", "invalid_image_format"),
        ("data:image/png;base64,@@@@", "invalid_value"),
    ],
)
async def test_the_fake_refuses_image_parts_openai_refuses(
    vision: FakeLLMServer, url: str, code: str
) -> None:
    body = {
        "model": "vision-test-model",
        "messages": [
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "what is this?"},
                    {"type": "image_url", "image_url": {"url": url}},
                ],
            }
        ],
    }
    async with (
        aiohttp.ClientSession() as session,
        session.post(f"{vision.api_base}/chat/completions", json=body) as response,
    ):
        refused = await response.json()

    assert response.status == 400
    assert refused["error"]["code"] == code
    assert refused["error"]["param"] == "messages[0].content[1].image_url.url"


async def test_the_fake_refuses_an_image_outside_a_user_message(vision: FakeLLMServer) -> None:
    image = {"type": "image_url", "image_url": {"url": "https://example.com/a.png"}}
    body = {"model": "vision-test-model", "messages": [{"role": "system", "content": [image]}]}
    async with (
        aiohttp.ClientSession() as session,
        session.post(f"{vision.api_base}/chat/completions", json=body) as response,
    ):
        refused = await response.json()

    assert response.status == 400
    assert "only allowed for messages with role 'user'" in refused["error"]["message"]
