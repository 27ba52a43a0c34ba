"""Fitting prompts into a context window."""

from __future__ import annotations

from typing import Any

import pytest

from bot.llm_window import TRIM_MARK, context_window, fit_messages


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


def test_a_single_message_is_never_trimmed() -> None:
    messages = [{"role": "user", "content": "a " * 50}]

    assert fit_messages(messages, budget=10, count=words) == messages


def test_a_prompt_that_cannot_fit_is_sent_after_trying() -> None:
    system = {"role": "system", "content": "rules " * 100}
    newest = {"role": "user", "content": "short"}

    fitted = fit_messages([system, newest], budget=10, count=words)

    assert fitted == [system, newest]
    assert TRIM_MARK not in fitted[-1]["content"]
