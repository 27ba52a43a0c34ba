"""Fitting prompts into a context window."""

from __future__ import annotations

from typing import Any

import pytest

from bot.llm_window import TRIM_MARK, context_window, fit_messages, most_tokens


class FakeLitellm:
    """Just enough of litellm's model-info lookup."""

    def __init__(self, info: dict[str, Any] | None) -> None:
        self.info = info

    def get_model_info(self, model: str) -> dict[str, Any]:
        if self.info is None:
            raise ValueError(f"This model isn't mapped yet. model={model}")
        return self.info


def words(batch: list[dict[str, str]]) -> int:
    return sum(len(m["content"].split()) for m in batch)


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
