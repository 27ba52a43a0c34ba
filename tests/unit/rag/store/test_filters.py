"""The scope prefilter always applies; files, severity and time come from the question."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from rag.store.filters import InvalidScopeError, Scope, check_id, derive_filters, quote


def test_the_scope_filter_names_workspace_kb_and_scope() -> None:
    where = Scope(("T1", "*"), "personal", "U1").where()

    assert where == "team_id IN ('T1', '*') AND kb = 'personal' AND scope_id = 'U1'"


@pytest.mark.parametrize("bad", ["T1' OR '1'='1", "", "a b", "x" * 200, "U1;DROP"])
def test_ids_that_could_escape_the_filter_are_rejected(bad: str) -> None:
    with pytest.raises(InvalidScopeError):
        check_id(bad, "user")


def test_quotes_inside_literals_are_doubled() -> None:
    assert quote("it's") == "'it''s'"


def test_a_named_file_becomes_a_source_filter() -> None:
    filters = derive_filters("What errors are in app.log and db.yaml.gz?")

    assert filters.sources == ("app.log", "db.yaml")
    assert filters.where() == "source IN ('app.log', 'db.yaml') AND severity_rank >= 40"


@pytest.mark.parametrize(
    ("question", "rank"),
    [
        ("show me the errors", 40),
        ("any ERROR lines?", 40),
        ("warnings and errors since deploy", 30),
        ("fatal crashes", 50),
        ("what does parity error corrected mean", 0),
    ],
)
def test_severity_words_set_a_minimum_level(question: str, rank: int) -> None:
    assert derive_filters(question).min_severity == rank


def test_a_dated_range_filters_on_timestamps() -> None:
    filters = derive_filters("what happened between 2025-10-21 14:05 and 2025-10-21 14:30?")

    assert filters.since == datetime(2025, 10, 21, 14, 5, tzinfo=UTC)
    assert filters.until == datetime(2025, 10, 21, 14, 30, tzinfo=UTC)


def test_after_a_time_of_day_filters_on_the_time_of_day() -> None:
    assert derive_filters("errors after 14:05").day_seconds == (14 * 3600 + 300, 86_399)
    assert derive_filters("what happened at 14:05")
    assert derive_filters("at 14:05").day_seconds == (14 * 3600, 14 * 3600 + 600)


def test_a_question_without_hints_has_no_filter() -> None:
    filters = derive_filters("why is the payment service slow")

    assert filters.where() is None
    assert filters.relaxations() == [None]


def test_filters_relax_to_the_named_file_then_to_nothing() -> None:
    relaxations = derive_filters("errors in app.log").relaxations()

    assert relaxations == [
        "source IN ('app.log') AND severity_rank >= 40",
        "source IN ('app.log')",
        None,
    ]
