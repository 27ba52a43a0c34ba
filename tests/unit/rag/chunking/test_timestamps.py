"""Every timestamp style the shared logs use is detected, parsed and stripped."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from rag.chunking.decoding import split_lines
from rag.chunking.timestamps import detect_format, parse_any, parser_for
from tests.loghub import LogSystem, systems

NOW = datetime(2026, 11, 21, 12, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("2015-10-18 18:01:47,978 INFO [main] x", datetime(2015, 10, 18, 18, 1, 47, 978000, UTC)),
        ("2025-10-21T14:32:15Z ERROR boom", datetime(2025, 10, 21, 14, 32, 15, tzinfo=UTC)),
        ("2025-10-21T16:32:15+02:00 ERROR", datetime(2025, 10, 21, 14, 32, 15, tzinfo=UTC)),
        ("[Sun Dec 04 04:47:44 2005] [notice] x", datetime(2005, 12, 4, 4, 47, 44, tzinfo=UTC)),
        (
            '10.0.0.1 - - [10/Oct/2000:13:55:36 -0700] "GET /"',
            datetime(2000, 10, 10, 20, 55, 36, tzinfo=UTC),
        ),
        ("081109 203615 148 INFO dfs.DataNode", datetime(2008, 11, 9, 20, 36, 15, tzinfo=UTC)),
        ("17/06/09 20:10:40 INFO spark", datetime(2017, 6, 9, 20, 10, 40, tzinfo=UTC)),
        ("Jun 14 15:16:01 combo sshd[1]: x", datetime(2026, 6, 14, 15, 16, 1, tzinfo=UTC)),
        ("18 Oct 2015 18:01:47,978 INFO x", datetime(2015, 10, 18, 18, 1, 47, 978000, UTC)),
        ("- 1117838570 2005.06.03 R02 RAS", datetime(2005, 6, 3, 22, 42, 50, tzinfo=UTC)),
        ("1700000000123 level=info", datetime(2023, 11, 14, 22, 13, 20, 123000, UTC)),
        ("E1021 14:32:15.123456 1 main.go:12] x", datetime(2026, 10, 21, 14, 32, 15, 123456, UTC)),
    ],
)
def test_each_format_parses_to_utc(line: str, expected: datetime) -> None:
    assert parse_any(line, 2026) == expected


@pytest.mark.parametrize("system", systems(), ids=lambda s: s.name)
def test_every_line_of_every_shared_log_has_its_timestamp_parsed(system: LogSystem) -> None:
    lines = split_lines(system.log_path.read_text(encoding="utf-8"))
    parser = parser_for(lines, NOW)

    parsed = [parser.parse(line) for line in lines]

    assert all(moment is not None for moment in parsed)


def test_the_hdfs_date_and_time_come_from_yymmdd_hhmmss() -> None:
    system = LogSystem("HDFS")
    lines = split_lines(system.log_path.read_text(encoding="utf-8"))
    truth = system.ground_truth()[0]

    moment = parser_for(lines, NOW).parse(lines[0])

    assert moment is not None
    assert moment.strftime("%y%m%d %H%M%S") == "081109 203615"
    assert truth.line == 1


def test_a_syslog_date_later_than_now_belongs_to_last_year() -> None:
    parser = parser_for(["Dec 10 06:55:46 host sshd[1]: x"], NOW.replace(month=1))

    moment = parser.parse("Dec 10 06:55:46 host sshd[1]: x")

    assert moment is not None
    assert moment.year == NOW.year - 1


def test_stripping_removes_only_the_timestamp() -> None:
    parser = parser_for(["081109 203615 148 INFO dfs.DataNode: x"], NOW)

    assert (
        parser.without_timestamp("081109 203615 148 INFO dfs.DataNode: x")
        == " 148 INFO dfs.DataNode: x"
    )
    assert parser.without_timestamp("no time here") == "no time here"


def test_text_without_timestamps_has_no_format() -> None:
    assert detect_format(["# Runbook", "", "Restart the pod."], 2026) is None
