"""The one retry policy: doubling waits, capped; Retry-After wins; jitter draws a share."""

from __future__ import annotations

from domain.retry import RetryPolicy


def test_waits_double_from_the_first_and_stop_at_the_cap() -> None:
    policy = RetryPolicy(attempts=6, first_delay_s=0.5, max_delay_s=3.0)

    assert [policy.delay(failed) for failed in range(1, 6)] == [0.5, 1.0, 2.0, 3.0, 3.0]


def test_a_servers_retry_after_wins_but_not_beyond_the_cap() -> None:
    policy = RetryPolicy(first_delay_s=0.5, max_delay_s=30.0)

    assert policy.delay(1, retry_after=7.0) == 7.0
    assert policy.delay(1, retry_after=120.0) == 30.0
    assert policy.delay(1, retry_after=-3.0) == 0.0


def test_jitter_waits_the_drawn_share_of_the_delay() -> None:
    policy = RetryPolicy(first_delay_s=2.0, jitter=True)

    assert policy.delay(2, draw=lambda: 0.25) == 1.0


def test_attempts_count_the_first_try() -> None:
    policy = RetryPolicy(attempts=3)

    assert [policy.allows_another(failed) for failed in (1, 2, 3)] == [True, True, False]
