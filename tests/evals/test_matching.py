"""Accepted phrasings, forbidden words and red herrings decide whether a root cause is right."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from evals.matching import Phrasing, keyword_score
from evals.scenario import load_scenarios
from evals.scoring.verdicts import chases_red_herring, claim_correct

(POOL,) = load_scenarios(only=["db-pool-cut"])
(WATCHDOG,) = load_scenarios(only=["alertmanager-watchdog"])


def test_a_phrasing_needs_all_of_its_words_and_one_of_its_alternatives() -> None:
    phrasing = Phrasing(all_of=["pool"], any_of=[r"\b10\b", "exhaust"])
    assert phrasing.matches("The POOL was cut to 10")
    assert phrasing.matches("pool exhausted")
    assert not phrasing.matches("pool of 100")
    assert not phrasing.matches("connections cut to 10")


def test_a_pattern_that_does_not_compile_is_refused() -> None:
    with pytest.raises(ValidationError, match="bad pattern"):
        Phrasing(all_of=["(unclosed"])


@pytest.mark.parametrize(
    ("claim", "right"),
    [
        ("Deploy v4.12.0 lowered the connection pool from 50 to 10", True),
        ("Pool exhaustion after the deploy", True),
        ("The pool was cut to 10 because DNS failed", False),  # a forbidden word spoils it
        ("A DNS resolution failure for the database host", False),
        ("Something about the database", False),
    ],
)
def test_a_claim_is_right_only_with_the_true_cause_and_nothing_forbidden(
    claim: str, right: bool
) -> None:
    assert claim_correct(POOL, claim) is right


def test_stating_the_red_herring_is_recognised() -> None:
    assert chases_red_herring(POOL, "it is DNS")
    assert not chases_red_herring(POOL, "the pool")


def test_when_nothing_is_wrong_every_claimed_root_cause_is_wrong() -> None:
    assert not claim_correct(WATCHDOG, WATCHDOG.truth.statement)


def test_keywords_count_as_whole_words_only() -> None:
    assert keyword_score(["log", "pool"], "the logs of the pool") == 1
    assert keyword_score(["load balancer"], "Load Balancer access log") == 1
