"""A reply becomes evidence: capped on a line, then redacted; every call leaves a record."""

from __future__ import annotations

import json
import time
from datetime import UTC, datetime

from domain.tools import ToolOutcome, as_evidence, record

LINE = "2026-11-27T03:12:00Z ERROR upstream timed out\n"


def test_a_short_reply_is_kept_whole() -> None:
    evidence = as_evidence("up 1\n")

    assert (evidence.text, evidence.received, evidence.truncated) == ("up 1\n", 5, False)


def test_a_long_reply_is_cut_at_a_line_and_says_so() -> None:
    raw = LINE * 1_000

    evidence = as_evidence(raw, max_bytes=1_000)

    lines = evidence.text.splitlines()
    assert evidence.truncated
    assert set(lines[:-1]) == {LINE.strip()}
    assert lines[-1] == f"[cut: the tool returned {len(raw):,} bytes; the first 966 are kept]"
    assert evidence.received == len(raw)
    assert evidence.kept < 1_100


def test_fifty_megabytes_cost_no_more_than_the_cap() -> None:
    raw = LINE * (50 * 1024 * 1024 // len(LINE))
    started = time.monotonic()

    evidence = as_evidence(raw)

    assert evidence.kept < 66 * 1024
    assert time.monotonic() - started < 2.0


def test_secrets_in_a_reply_are_redacted_and_counted() -> None:
    evidence = as_evidence("aws_access_key_id=AKIAIOSFODNN7EXAMPLE\npassword=hunter2-Xq9\nok\n")

    assert "AKIAIOSFODNN7EXAMPLE" not in evidence.text
    assert "hunter2-Xq9" not in evidence.text
    assert evidence.redactions == 2
    assert evidence.text.count("\n") == 3


def test_a_multibyte_character_at_the_cut_is_not_split() -> None:
    evidence = as_evidence("é" * 100, max_bytes=51)

    assert evidence.text.startswith("é" * 25 + "\n[cut:")


def test_the_record_keeps_the_arguments_redacted() -> None:
    call = record(
        server="grafana",
        tool="query_loki_logs",
        arguments={"logql": '{app="api"} |= "token=ghp_abcdefghijklmnopqrstuvwxyz0123456789"'},
        started_at=datetime(2026, 11, 27, 3, 12, tzinfo=UTC),
        duration_ms=42,
        outcome=ToolOutcome.OK,
        received=10,
        kept=10,
    )

    assert "ghp_abcdefghijklmnopqrstuvwxyz0123456789" not in call.arguments
    assert json.loads(call.arguments).keys() == {"logql"}
    assert (call.server, call.tool, call.duration_ms, call.bytes, call.outcome) == (
        "grafana",
        "query_loki_logs",
        42,
        10,
        ToolOutcome.OK,
    )
