"""The keys of retried work: each try its own inbox key, every try the first try's work key."""

from __future__ import annotations

from bot.services.retries import again_key, first_key


def test_each_retry_of_a_piece_of_work_gets_a_new_key_and_keeps_the_first() -> None:
    first = "action:fm_answer:yes:1712.0001"

    second = again_key(first)
    third = again_key(second)

    assert len({first, second, third}) == 3
    assert first_key(first) == first_key(second) == first_key(third) == first
    assert again_key(first) == second, "the same failure retried twice gets the same key"


def test_a_key_that_merely_starts_with_retry_is_a_first_try() -> None:
    for key in ("retry", "retry:x", "retry:1:", "retry:one:Ev1"):
        assert first_key(key) == key
