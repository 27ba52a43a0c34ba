"""Fitting prompts into a context window."""

from __future__ import annotations

from typing import Any

import pytest

from bot.llm.config import GatewayConfig
from bot.llm.gateway import LiteLLMGateway
from bot.llm.window import TRIM_MARK, context_window, fit_messages, most_tokens
from domain.llm import MemoryCallRecorder


class FakeLitellm:
    """Just enough of litellm's model-info lookup."""

    def __init__(self, info: dict[str, Any] | None) -> None:
        self.info = info
        self.asked: list[str | None] = []
        self.registered: dict[str, dict[str, Any]] = {}

    def get_model_info(self, model: str, api_base: str | None = None) -> dict[str, Any]:
        self.asked.append(api_base)
        if self.info is None:
            raise ValueError(f"This model isn't mapped yet. model={model}")
        return self.info

    def register_model(self, entries: dict[str, dict[str, Any]]) -> None:
        self.registered.update(entries)


def words(batch: list[dict[str, str]]) -> int:
    return sum(len(m["content"].split()) for m in batch)


class CountingWords:
    """A word counter noting how many messages each call counted."""

    def __init__(self) -> None:
        self.sizes: list[int] = []

    def __call__(self, batch: list[dict[str, str]]) -> int:
        self.sizes.append(len(batch))
        return words(batch)


@pytest.mark.parametrize(
    ("info", "expected"),
    [
        ({"max_input_tokens": 128_000}, 128_000),
        ({"max_input_tokens": None, "max_tokens": 32_000}, 32_000),
        ({"max_input_tokens": None}, 4096),
        (None, 4096),
    ],
)
def test_the_window_comes_from_model_info_or_a_conservative_default(
    info: dict[str, Any] | None, expected: int
) -> None:
    assert context_window(FakeLitellm(info), "openai/x", 4096) == expected


def test_an_ollama_window_is_asked_of_the_configured_server_once_and_then_pinned() -> None:
    litellm = FakeLitellm({"max_input_tokens": 32_768, "litellm_provider": "ollama_chat"})

    window = context_window(litellm, "ollama_chat/llama3.1:8b", 4096, "http://gpu-box:11434")

    assert window == 32_768
    assert litellm.asked == ["http://gpu-box:11434"]
    pinned = litellm.registered["ollama_chat/llama3.1:8b"]
    assert (pinned["max_input_tokens"], pinned["litellm_provider"]) == (32_768, "ollama_chat")


def test_a_hosted_model_window_is_not_pinned() -> None:
    litellm = FakeLitellm({"max_input_tokens": 128_000, "litellm_provider": "openai"})

    context_window(litellm, "openai/gpt-4o", 4096)

    assert litellm.registered == {}


def test_messages_that_fit_are_sent_unchanged() -> None:
    messages = [{"role": "system", "content": "a b"}, {"role": "user", "content": "c"}]

    assert fit_messages(messages, budget=10, count=words) == messages


def test_a_prompt_far_under_the_window_is_not_counted() -> None:
    messages = [{"role": "system", "content": "a b"}, {"role": "user", "content": "c"}]

    def refuse(_: list[dict[str, str]]) -> int:
        raise AssertionError("counted a prompt that fits by its size alone")

    assert fit_messages(messages, budget=100, count=refuse) == messages


@pytest.mark.parametrize("model", ["openai/gpt-4o", "openai/gpt-3.5-turbo", "claude-3-5-sonnet"])
def test_the_size_bound_is_never_below_the_real_count(model: str) -> None:
    import litellm

    sample = (
        "081109 203615 148 INFO dfs.DataNode$PacketResponder: PacketResponder 1 for block "
        "blk_38865049064139660 terminating\n"
        'Ошибка соединения: таймаут 30 s — 接続エラー 🔥🔥 \t\t{"k": [1, 2, 3]}\n'
    )
    for repeat in (0, 1, 7, 40):
        messages = [
            {"role": "system", "content": "x" * repeat},
            {"role": "user", "content": sample * repeat},
            {"role": "assistant", "content": ""},
        ]

        assert most_tokens(messages) >= litellm.token_counter(model=model, messages=messages)


def test_a_single_message_is_never_trimmed() -> None:
    messages = [{"role": "user", "content": "a " * 50}]

    assert fit_messages(messages, budget=10, count=words) == messages


def test_a_prompt_that_cannot_fit_is_sent_after_trying() -> None:
    system = {"role": "system", "content": "rules " * 100}
    newest = {"role": "user", "content": "short"}

    fitted = fit_messages([system, newest], budget=10, count=words)

    assert fitted == [system, newest]
    assert TRIM_MARK not in fitted[-1]["content"]


def test_each_message_is_counted_once_however_many_are_dropped() -> None:
    counting = CountingWords()
    system = {"role": "system", "content": "rules " * 5}
    excerpts = [{"role": "user", "content": f"excerpt {n} " + "w " * 8} for n in range(200)]
    newest = {"role": "user", "content": "what now"}

    fitted = fit_messages([system, *excerpts, newest], budget=100, count=counting)

    # The oldest excerpts go first, and the newest input says so (room is kept for that
    # sentence); the tokenizer never runs over the whole prompt again.
    kept = fitted[1:-1]
    assert kept == excerpts[-len(kept) :]
    assert 4 <= len(kept) <= 9
    assert fitted[0] == system
    assert fitted[-1]["content"].startswith("what now\nSystem note: ")
    assert f"{200 - len(kept)} earlier message(s)" in fitted[-1]["content"]
    assert counting.sizes == [1] * 202


def test_shortening_the_newest_input_recounts_only_it() -> None:
    counting = CountingWords()
    system = {"role": "system", "content": "rules"}
    newest = {"role": "user", "content": " ".join(f"w{n}" for n in range(2000))}

    fitted = fit_messages([system, newest], budget=1000, count=counting)

    assert TRIM_MARK in fitted[-1]["content"]
    assert words(fitted) <= 1000
    assert set(counting.sizes) == {1}


@pytest.mark.parametrize("model", ["openai/gpt-4o", "openai/test-model", "ollama/llama-3-8b"])
def test_messages_counted_alone_never_sum_below_their_count_together(model: str) -> None:
    # litellm as the gateway sets it up (one bundled tokenizer for every model).
    gateway = LiteLLMGateway(GatewayConfig(model=model), recorder=MemoryCallRecorder())
    litellm = gateway._litellm()
    messages = [
        {"role": "system", "content": "You pair with on-call engineers. " * 30},
        {"role": "user", "content": "081109 203615 148 INFO dfs.DataNode: block terminating\n" * 9},
        {"role": "assistant", "content": "Which pods restarted?"},
        {"role": "user", "content": "api-7f9c and api-2b1d, OOMKilled 🔥"},
    ]

    alone = sum(litellm.token_counter(model=model, messages=[m]) for m in messages)

    assert alone >= litellm.token_counter(model=model, messages=messages)
