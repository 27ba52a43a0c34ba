"""A log's findings: errors and warnings first, each cited by line, then what changed."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from domain.knowledge import Finding, FindingKind
from rag.chunking.decoding import split_lines
from rag.chunking.findings import (
    CONTEXT_AFTER,
    CONTEXT_BEFORE,
    MAX_CONTEXT_CHARS,
    log_findings,
)
from rag.chunking.severity import RANKS
from rag.chunking.templates import build_templates
from rag.chunking.timestamps import parser_for
from tests.incident_log import (
    DEPLOY_LINE,
    FILENAME,
    FIRST_TIMEOUT_LINE,
    POOL_CHANGE_LINE,
    incident_log,
)
from tests.loghub import LogSystem, systems
from tests.mixed_log import mixed_log

NOW = datetime(2026, 11, 26, 12, 0, tzinfo=UTC)
LEVELLED = [s for s in systems() if s.name not in ("OpenSSH", "Linux", "Spark")]


def findings_of(lines: list[str], source: str = FILENAME) -> list[Finding]:
    parser = parser_for(lines, NOW)
    return log_findings(source, lines, build_templates(lines, parser), parser)


def incident() -> tuple[list[str], list[Finding]]:
    lines = split_lines(incident_log())
    return lines, findings_of(lines)


def loghub(system: LogSystem) -> tuple[list[str], list[Finding]]:
    lines = split_lines(system.log_path.read_text(encoding="utf-8"))
    return lines, findings_of(lines, system.filename)


def test_the_first_finding_is_the_error_cited_at_its_first_and_last_line() -> None:
    lines, findings = incident()
    timeouts = [n for n, line in enumerate(lines, 1) if "Connection is not available" in line]

    first = findings[0]

    assert (first.kind, first.severity) == (FindingKind.PROBLEM, "ERROR")
    assert first.first.label() == f"{FILENAME}:{FIRST_TIMEOUT_LINE} (14:23:15Z)"
    assert (first.first.line_start, first.last.line_start) == (timeouts[0], timeouts[-1])
    assert first.count == len(timeouts)
    assert first.new


def test_a_finding_shows_its_first_line_with_the_values_unmasked() -> None:
    lines, findings = incident()

    example = findings[0].example

    assert "request timed out after 30000ms" in example
    assert "<*>" not in example
    assert lines[FIRST_TIMEOUT_LINE - 1].endswith(example)


@pytest.mark.parametrize("system", [*systems(), LogSystem("incident")], ids=lambda s: s.name)
def test_info_messages_never_outrank_errors_or_warnings(system: LogSystem) -> None:
    _, findings = incident() if system.name == "incident" else loghub(system)
    kinds = [f.kind for f in findings]
    problems = [f for f in findings if f.kind is FindingKind.PROBLEM]

    assert kinds == sorted(kinds, key=lambda kind: kind is not FindingKind.PROBLEM)
    # What began partway through first (the latest, loudest start first), then what jumped,
    # then the rest, each worst first, then most frequent.
    groups = [2 if f.new else int(f.rate_factor is not None) for f in problems]
    assert groups == sorted(groups, reverse=True)
    for group in (0, 1):
        order = [
            (RANKS[f.severity or "INFO"], f.count)
            for g, f in zip(groups, problems, strict=True)
            if g == group
        ]
        assert order == sorted(order, reverse=True)
    assert all(RANKS[f.severity or "INFO"] >= RANKS["WARN"] for f in problems)


def test_a_new_error_late_in_a_loud_mixed_log_outranks_its_steady_background() -> None:
    log = mixed_log()

    findings = findings_of(split_lines(log.text), "app.log")

    problems = [f for f in findings if f.kind is FindingKind.PROBLEM]
    cert = next(f for f in problems if "certificate has expired" in f.example)
    assert problems[0] is cert, "the one error absent from 70% of the file comes first"
    assert cert.count == len(log.cert_lines)
    assert cert.first.line_start == log.first_cert_line


@pytest.mark.parametrize("system", LEVELLED, ids=lambda s: s.name)
def test_the_first_finding_cites_the_first_and_last_line_of_its_event(system: LogSystem) -> None:
    truth = system.ground_truth()
    _, findings = loghub(system)

    def event_lines(finding: Finding) -> list[int]:
        event = truth[(finding.first.line_start or 0) - 1].event_id
        return [row.line for row in truth if row.event_id == event]

    # The first finding whose message is one event of the ground truth (how well messages are
    # grouped into events is measured by the template tests).
    first = next(f for f in findings[:3] if f.count == len(event_lines(f)))
    lines_of_event = event_lines(first)

    assert truth[lines_of_event[0] - 1].level.upper() not in ("INFO", "NOTICE", "")
    assert (first.first.line_start, first.last.line_start) == (
        lines_of_event[0],
        lines_of_event[-1],
    )


def test_lines_that_are_only_redacted_private_keys_are_never_findings() -> None:
    # Mostly untimestamped, so the key lines count as entries of their own, new partway through.
    key = ["[REDACTED PRIVATE KEY]"] * 27
    lines = [
        *(f"2026-11-21T14:05:{i:02d}Z WARN loading deploy key {i}" for i in range(20)),
        *key,
        *key,
        *key,
    ]

    findings = findings_of(lines)

    assert [f.template for f in findings] == ["WARN loading deploy key <*>"]


def test_without_recognised_timestamps_findings_still_cite_their_lines() -> None:
    lines = [
        f"21.11.2026 14:05:{i % 60:02d} {'ERROR' if i % 7 == 0 else 'INFO'} job {i}"
        for i in range(80)
    ]

    findings = findings_of(lines, "odd.log")

    assert findings[0].first.label() == "odd.log:1"
    assert findings[0].last.label() == "odd.log:78"


def test_a_message_that_first_appears_partway_through_is_new() -> None:
    _, findings = incident()

    (deploy,) = [f for f in findings if f.kind is FindingKind.NEW]

    assert deploy.first.line_start == DEPLOY_LINE
    assert deploy.since == deploy.first
    assert "rollout of payments-api v2.4.1" in deploy.example


def test_a_setting_logged_again_with_another_value_is_a_change() -> None:
    _, findings = incident()

    (changed,) = [f for f in findings if f.kind is FindingKind.CHANGED]

    assert changed.changed == "maximumPoolSize=50 → maximumPoolSize=10"
    assert changed.since is not None
    assert changed.since.line_start == POOL_CHANGE_LINE
    assert changed.first.line_start == 2


def test_a_message_at_many_times_its_earlier_rate_is_a_rate_jump() -> None:
    _, findings = incident()

    (jump,) = [f for f in findings if f.kind is FindingKind.SURGE]

    assert "retrying charge" in jump.template
    assert jump.since is not None
    assert jump.since.line_start is not None
    assert FIRST_TIMEOUT_LINE <= jump.since.line_start <= FIRST_TIMEOUT_LINE + 12
    assert (jump.first.line_start or 0) < FIRST_TIMEOUT_LINE
    assert jump.rate_factor is not None
    assert jump.rate_factor >= 5


def test_what_changed_just_before_the_errors_began_comes_first_among_the_changes() -> None:
    _, findings = incident()

    changes = [f.kind for f in findings if f.kind is not FindingKind.PROBLEM]

    assert changes == [FindingKind.CHANGED, FindingKind.NEW, FindingKind.SURGE]


def test_stack_frames_after_an_error_are_not_new_messages() -> None:
    ok = [f"2026-11-21T14:{i // 60:02d}:{i % 60:02d}Z INFO request {i} ok" for i in range(60)]
    trace = [
        "2026-11-21T14:01:00Z ERROR request failed",
        "java.lang.IllegalStateException: pool exhausted",
        "\tat com.example.Pool.get(Pool.java:42)",
    ]

    findings = findings_of([*ok, *trace, *ok])

    assert [(f.kind, f.first.line_start) for f in findings] == [(FindingKind.PROBLEM, 61)]


def test_a_short_log_reports_its_errors_but_no_changes() -> None:
    lines = [
        "2026-11-21T14:05:01Z INFO started",
        "2026-11-21T14:05:02Z INFO config maximumPoolSize=50",
        "2026-11-21T14:05:03Z INFO config maximumPoolSize=10",
        "2026-11-21T14:05:04Z ERROR pool exhausted after 30000ms",
    ]

    findings = findings_of(lines)

    assert [(f.kind, f.example) for f in findings] == [
        (FindingKind.PROBLEM, "ERROR pool exhausted after 30000ms")
    ]


def spring(second: int, level: str, thread: str, message: str) -> str:
    return (
        f"2026-11-21 14:05:{second:02d}.071 {level:>5} 1 --- [{thread:>15}] "
        f"o.h.engine.jdbc.spi.SqlExceptionHelper   : {message}"
    )


TIMEOUT = "HikariPool-1 - Connection is not available, request timed out after 30000ms."


def test_a_message_logged_from_two_threads_is_one_finding_from_its_first_to_last_line() -> None:
    lines = [
        spring(1, "INFO", "main", "HikariPool-1 - Start completed."),
        spring(2, "ERROR", "nio-8080-exec-6", TIMEOUT),
        spring(3, "WARN", "nio-8080-exec-6", "SQL Error: 0, SQLState: null"),
        spring(4, "ERROR", "io-8080-exec-40", TIMEOUT),
        spring(5, "ERROR", "io-8080-exec-40", TIMEOUT),
    ]

    findings = findings_of(lines)

    timeouts = [f for f in findings if "Connection is not available" in f.example]
    assert len(timeouts) == 1
    (timeout,) = timeouts
    assert (timeout.severity, timeout.count) == ("ERROR", 3)
    assert (timeout.first.line_start, timeout.last.line_start) == (2, 5)
    assert "[nio-8080-exec-6]" in timeout.example


def test_a_message_from_many_threads_ranks_by_all_its_lines() -> None:
    lines = [
        spring(1, "ERROR", "nio-8080-exec-6", TIMEOUT),
        spring(2, "ERROR", "nio-8080-exec-7", "Pool is shutting down"),
        spring(3, "ERROR", "nio-8080-exec-7", "Pool is shutting down"),
        spring(4, "ERROR", "io-8080-exec-40", TIMEOUT),
        spring(5, "ERROR", "io-8080-exec-41", TIMEOUT),
    ]

    findings = findings_of(lines)

    assert [(f.count, f.message) for f in findings] == [
        (3, TIMEOUT),
        (2, "Pool is shutting down"),
    ]


def test_a_message_one_thread_logged_from_the_start_is_not_new_when_another_logs_it() -> None:
    ok = [spring(i % 60, "INFO", "main", f"GET /health 200 OK in {i}ms") for i in range(60)]
    lines = [
        spring(0, "WARN", "nio-8080-exec-6", "Slow query took 900ms"),
        *ok,
        spring(1, "WARN", "io-8080-exec-40", "Slow query took 1200ms"),
    ]

    (slow,) = [f for f in findings_of(lines) if f.kind is FindingKind.PROBLEM]

    assert (slow.count, slow.first.line_start, slow.last.line_start) == (2, 1, 62)
    assert not slow.new


@pytest.mark.parametrize("system", [*systems(), LogSystem("incident")], ids=lambda s: s.name)
def test_each_finding_carries_a_few_lines_around_the_line_it_shows(system: LogSystem) -> None:
    lines, findings = incident() if system.name == "incident" else loghub(system)

    for finding in findings:
        shown = (
            finding.since if finding.kind is not FindingKind.PROBLEM else None
        ) or finding.first
        line = shown.line_start or 0
        assert finding.context_start == max(line - CONTEXT_BEFORE, 1)
        around = lines[finding.context_start - 1 : line + CONTEXT_AFTER]
        assert [text.removesuffix("…") for text in finding.context] == [
            text[: MAX_CONTEXT_CHARS - 1] if len(text) > MAX_CONTEXT_CHARS else text
            for text in around
        ]
