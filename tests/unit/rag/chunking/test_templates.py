"""Repeated lines share a masked template, so embedding cost follows distinct content."""

from __future__ import annotations

from collections import defaultdict
from datetime import UTC, datetime

import pytest

from rag.chunking.decoding import split_lines
from rag.chunking.severity import ERROR_RANK, WARN_RANK, severity_rank
from rag.chunking.templates import build_templates, mask
from rag.chunking.timestamps import parser_for
from tests.loghub import LogSystem, systems

NOW = datetime(2026, 11, 21, 12, 0, tzinfo=UTC)


def test_numbers_ids_hex_ips_and_paths_are_masked() -> None:
    line = (
        "req 123e4567-e89b-12d3-a456-426614174000 from 10.1.2.3:8080 read /var/log/app.log "
        "sha deadbeef00ff11 pid 42 addr 0x7ffd"
    )

    assert mask(line) == "req <*> from <*> read <*> sha <*> pid <*> addr <*>"


def test_lines_differing_only_in_variables_share_a_template() -> None:
    lines = [
        "2025-10-21T14:32:15Z ERROR conn 10.0.0.1:5432 timed out after 30000ms",
        "2025-10-21T14:32:16Z ERROR conn 10.0.0.7:5432 timed out after 30001ms",
        "2025-10-21T14:32:17Z INFO pool size 10",
    ]

    table = build_templates(lines, parser_for(lines, NOW))

    assert table.line_template.tolist() == [0, 0, 1]
    assert table.counts.tolist() == [2, 1]
    assert table.error_count == 2
    assert table.most_repeated(1) == [(2, "ERROR conn <*> timed out after <*>ms")]


def gateway_error(second: int, thread: str, millis: int, order: str) -> str:
    return (
        f"2025-03-12 14:05:{second:02d}.074 ERROR 1 --- [{thread}] "
        "c.s.checkout.web.ApiExceptionHandler     : "
        f"POST /api/checkout -> 502 BAD_GATEWAY after {millis}ms (order={order}): "
        "CannotCreateTransactionException: Could not open JPA EntityManager for transaction"
    )


def test_requests_failing_alike_share_a_template_whatever_their_short_hex_ids() -> None:
    lines = [
        gateway_error(28, "io-8080-exec-40", 30018, "ord_7dd73d"),
        gateway_error(52, "io-8080-exec-40", 30014, "ord_1c3a90"),
        gateway_error(58, "io-8080-exec-33", 30019, "ord_fdca23"),
    ]

    table = build_templates(lines, parser_for(lines, NOW))

    assert table.line_template.tolist() == [0, 0, 0]
    assert "(order=ord_<*>)" in table.signatures[0]


@pytest.mark.parametrize(
    ("text", "masked"),
    [
        ("order=ord_7dd73d", "order=ord_<*>"),
        ("deployed a1b2c3d", "deployed <*>"),
        ("span:1C3A90 trace-fdca23.json", "span:<*> trace-<*>.json"),
        ("[64cd29]", "[<*>]"),
    ],
)
def test_a_short_id_of_hex_digits_and_letters_is_one_variable(text: str, masked: str) -> None:
    assert mask(text) == masked


@pytest.mark.parametrize(
    "text",
    [
        "deadline exceeded",
        "added cafe to the facade decade",
        "failed",
        "Deface bedded beaded",
    ],
)
def test_words_made_of_hex_letters_are_not_ids(text: str) -> None:
    assert mask(text) == text


def test_only_a_whole_token_or_its_part_after_a_separator_is_a_short_id() -> None:
    # Within a word the digits alone are the variable, as before.
    assert mask("xabc123 abc123x abc12") == "xabc<*> abc<*>x abc<*>"


@pytest.mark.parametrize("system", systems(), ids=lambda s: s.name)
def test_no_template_mixes_two_loghub_events(system: LogSystem) -> None:
    lines = split_lines(system.log_path.read_text(encoding="utf-8"))
    table = build_templates(lines, parser_for(lines, NOW))
    events: dict[int, set[str]] = defaultdict(set)

    for truth in system.ground_truth():
        events[int(table.line_template[truth.line - 1])].add(truth.event_id)

    assert all(len(ids) == 1 for ids in events.values())
    assert len(table.signatures) < len(lines) / 5


@pytest.mark.parametrize(
    ("line", "rank"),
    [
        ("[Sun Dec 04 04:47:44 2005] [error] mod_jk child", ERROR_RANK),
        ("- 1117838570 R02 RAS KERNEL INFO parity error corrected", 20),
        ("2015-07-29 17:41:44,747 - WARN  [x] - y", WARN_RANK),
        ('{"level": "error", "msg": "x"}', ERROR_RANK),
        ("E1021 14:32:15.1 1 main.go:12] failed", ERROR_RANK),
        ("Jun 14 15:16:01 combo sshd: authentication failure", 0),
        ("LabSZ sshd[24439]: error: Received disconnect from 103.99.0.122", ERROR_RANK),
        ("sshd[1]: fatal: Read from socket failed: Connection reset by peer", 50),
        ("kernel: no error: all good", 0),
    ],
)
def test_the_first_named_level_sets_a_lines_severity(line: str, rank: int) -> None:
    assert severity_rank(line) == rank


def test_error_and_warning_counts_match_the_ground_truth_levels() -> None:
    system = LogSystem("Zookeeper")
    lines = split_lines(system.log_path.read_text(encoding="utf-8"))
    truth = system.ground_truth()

    table = build_templates(lines, parser_for(lines, NOW))

    assert table.error_count == sum(1 for row in truth if row.level == "ERROR")
    assert table.warning_count == sum(1 for row in truth if row.level == "WARN")
