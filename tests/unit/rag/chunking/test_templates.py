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
