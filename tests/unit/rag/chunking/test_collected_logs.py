"""Logs as collectors hand them over (kubectl --prefix, syslog, logcli): findings in their words."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

import pytest

from domain.knowledge import Finding, FindingKind, log_message
from rag.chunking.decoding import split_lines
from rag.chunking.findings import MAX_CONTEXT_CHARS, MAX_CONTEXT_LINES, log_findings
from rag.chunking.templates import build_templates
from rag.chunking.timestamps import parser_for
from tests.paths import TEST_DATA

NOW = datetime(2026, 11, 26, 12, 0, tzinfo=UTC)
KAFKA = TEST_DATA / "incidents" / "kafka-consumer-rebalance" / "fulfillment-worker.log"
POD = "[pod/fulfillment-worker-7d9f8b-x2k4p/worker]"
COMMIT_FAILED = (
    "Commit failed: org.apache.kafka.clients.consumer.CommitFailedException: Offset commit "
    "cannot be completed since the consumer is not part of an active group"
)


def findings_of(lines: list[str], source: str) -> list[Finding]:
    parser = parser_for(lines, NOW)
    return log_findings(source, lines, build_templates(lines, parser), parser)


def kafka() -> tuple[list[str], list[Finding]]:
    lines = split_lines(KAFKA.read_text(encoding="utf-8"))
    return lines, findings_of(lines, KAFKA.name)


def shown(line: str) -> str:
    """A line as context shows it: cut to a readable length."""
    return line if len(line) <= MAX_CONTEXT_CHARS else line[: MAX_CONTEXT_CHARS - 1] + "…"


def line_of(lines: list[str], text: str) -> int:
    """The 1-based number of the first line ending with ``text``."""
    return next(n for n, line in enumerate(lines, 1) if line.endswith(text))


def test_a_kubectl_prefixed_error_is_shown_in_its_own_words_not_cut_in_the_pod_name() -> None:
    lines, findings = kafka()

    (commit,) = [f for f in findings if "CommitFailedException" in f.example]

    assert (commit.kind, commit.severity, commit.count) == (FindingKind.PROBLEM, "ERROR", 3)
    assert commit.message.startswith(COMMIT_FAILED)
    assert commit.example.startswith(f"{POD} ERROR [order-consumer-0]")
    assert "is not part of an active group" in commit.example
    failed = [n for n, line in enumerate(lines, 1) if "CommitFailedException" in line]
    assert (commit.first.line_start, commit.last.line_start) == (failed[0], failed[-1])


def test_kafkas_rebalance_warning_is_shown_without_the_client_it_names() -> None:
    _, findings = kafka()

    (timeout,) = [f for f in findings if "poll timeout" in f.example and f.severity == "WARN"]

    assert timeout.message.startswith("consumer poll timeout has expired. This means")
    assert "[Consumer clientId=consumer-fulfillment-worker-2" in timeout.example


def test_max_poll_records_dumped_again_after_the_restart_is_the_change_before_the_errors() -> None:
    lines, findings = kafka()
    before = line_of(lines, "\tmax.poll.records = 500")
    after = line_of(lines, "\tmax.poll.records = 5000")
    dumps = [n for n, line in enumerate(lines, 1) if line.endswith("ConsumerConfig values: ")]

    changed = [f for f in findings if f.kind is FindingKind.CHANGED]
    first_change = next(f for f in findings if f.kind is not FindingKind.PROBLEM)

    assert [f.changed for f in changed] == ["max.poll.records = 500 → max.poll.records = 5000"]
    (poll,) = changed
    assert poll is first_change
    assert poll.since is not None
    assert (poll.first.line_start, poll.since.line_start) == (before, after)
    # A dumped line has no time of its own: it has that of the entry it belongs to.
    assert poll.since.timestamp == parser_for(lines, NOW).parse(lines[dumps[1] - 1])
    assert poll.example == f"{POD} max.poll.records = 5000"


def test_every_finding_carries_the_lines_around_it_as_written() -> None:
    lines, findings = kafka()

    for finding in findings:
        start = finding.context_start
        assert start is not None
        around = lines[start - 1 : start - 1 + len(finding.context)]
        assert finding.context == [shown(line) for line in around]
        assert 1 <= len(finding.context) <= MAX_CONTEXT_LINES
        cited = (finding.since or finding.first).line_start or 0
        assert start <= cited < start + len(finding.context)


def test_an_errors_context_holds_its_stack_trace_and_a_changes_the_line_that_changed() -> None:
    lines, findings = kafka()
    (commit,) = [f for f in findings if "CommitFailedException" in f.example]
    (poll,) = [f for f in findings if f.kind is FindingKind.CHANGED]

    first = commit.first.line_start or 0
    assert commit.context_start == first - 3
    assert commit.context[3] == shown(lines[first - 1])
    assert [line for line in commit.context[4:] if "\tat " in line] == commit.context[4:]
    assert any("ConsumerCoordinator.sendOffsetCommitRequest" in line for line in commit.context)
    assert f"{POD} \tmax.poll.records = 5000" in poll.context


def test_context_lines_are_cut_to_a_readable_length() -> None:
    stamp = "2026-11-24T10:00:{:02d}Z"
    lines = [f"{stamp.format(i % 60)} INFO job {i} done" for i in range(20)]
    lines[10] = f"{stamp.format(10)} ERROR payload rejected: {'x' * 2000}"

    (error,) = findings_of(lines, "jobs.log")

    assert max(len(line) for line in error.context) == MAX_CONTEXT_CHARS
    assert error.context[3].endswith("…")


def syslog_lines() -> list[str]:
    start = datetime(2026, 11, 24, 10, 0, tzinfo=UTC)
    host = "ip-10-0-3-17 fulfillment-worker[2231]:"
    lines = []
    for i in range(80):
        at = (start + timedelta(seconds=5 * i)).strftime("%b %e %H:%M:%S")
        if i > 60 and i % 3 == 0:
            said = f"ERROR c.a.fulfillment.OrderConsumer - {COMMIT_FAILED} (attempt {i})"
        else:
            said = f"INFO c.a.fulfillment.OrderConsumer - processed batch {i} of 500 records"
        lines.append(f"{at} {host} {said}")
    return lines


def test_a_syslog_hosts_and_programs_prefix_is_set_apart_from_the_message() -> None:
    lines = syslog_lines()

    (commit,) = [f for f in findings_of(lines, "messages") if f.kind is FindingKind.PROBLEM]

    assert commit.message.startswith(COMMIT_FAILED)
    assert commit.example.startswith("ip-10-0-3-17 fulfillment-worker[2231]: ERROR")
    assert commit.new


def through_syslog(lines: list[str]) -> list[str]:
    """The Kafka export as syslog would have it: every line with its time, host and program."""
    written = []
    at = "Nov 24 09:58:03"
    for line in lines:
        said = line.removeprefix(f"{POD} ")
        stamped = re.match(r"2026-11-24T(\d\d:\d\d:\d\d)\.\d+Z (.*)", said)
        if stamped:
            at, said = f"Nov 24 {stamped[1]}", stamped[2]
        written.append(f"{at} ip-10-0-3-17 fulfillment-worker[2231]: {said}")
    return written


def test_a_config_dumped_through_syslog_line_by_line_is_still_a_change() -> None:
    lines, _ = kafka()
    syslog = through_syslog(lines)

    changed = [f for f in findings_of(syslog, "messages") if f.kind is FindingKind.CHANGED]

    assert [(f.changed, f.first.line_start) for f in changed] == [
        (
            "max.poll.records = 500 → max.poll.records = 5000",
            line_of(lines, "max.poll.records = 500"),
        )
    ]
    assert changed[0].since is not None
    assert changed[0].since.line_start == line_of(lines, "max.poll.records = 5000")


def logcli_lines() -> list[str]:
    start = datetime(2026, 11, 24, 10, 0, tzinfo=UTC)
    pods = ("fulfillment-worker-7d9f8b-x2k4p", "fulfillment-worker-7d9f8b-q8m3z")
    lines = []
    for i in range(80):
        at = start + timedelta(seconds=5 * i)
        labels = f'{{app="fulfillment-worker", namespace="orders", pod="{pods[i % 2]}"}}'
        own = at.strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"
        if i > 60 and i % 3 == 0:
            said = f"ERROR [order-consumer-0] c.a.fulfillment.OrderConsumer - {COMMIT_FAILED}"
        else:
            said = f"INFO [order-consumer-0] c.a.fulfillment.OrderConsumer - processed batch {i}"
        lines.append(f"{at:%Y-%m-%dT%H:%M:%SZ} {labels} {own} {said}")
    return lines


def test_loki_labels_are_set_apart_and_a_message_from_two_pods_is_one_finding() -> None:
    lines = logcli_lines()
    errors = [n for n, line in enumerate(lines, 1) if "ERROR" in line]

    (commit,) = [f for f in findings_of(lines, "loki.log") if f.kind is FindingKind.PROBLEM]

    assert commit.message.startswith(COMMIT_FAILED)
    assert commit.example.startswith('{app="fulfillment-worker"')
    assert (commit.count, commit.first.line_start, commit.last.line_start) == (
        len(errors),
        errors[0],
        errors[-1],
    )


@pytest.mark.parametrize(
    "line",
    [
        f"{POD} ERROR [order-consumer-0] c.a.fulfillment.OrderConsumer - {COMMIT_FAILED}",
        f"{POD} 2026-11-24T10:06:21.999Z ERROR [order-consumer-0] c.a.f.OrderConsumer - "
        f"{COMMIT_FAILED}",
        f'{{app="fulfillment-worker", pod="fulfillment-worker-7d9f8b-x2k4p"}} '
        f"ERROR {COMMIT_FAILED}",
        f"ip-10-0-3-17 fulfillment-worker[2231]: ERROR {COMMIT_FAILED}",
        f"combo sshd(pam_unix)[19939]: {COMMIT_FAILED}",
        f"WARN [main] o.a.k.c.c.internals.ConsumerCoordinator - [Consumer clientId=consumer-1, "
        f"groupId=fulfillment-worker] {COMMIT_FAILED}",
    ],
    ids=["kubectl", "kubectl-timestamp", "loki", "syslog", "syslog-pam", "kafka-client"],
)
def test_where_a_line_was_collected_and_who_logged_it_are_not_its_message(line: str) -> None:
    assert log_message(line) == COMMIT_FAILED


def test_a_line_that_is_only_a_pod_prefix_is_its_own_message() -> None:
    assert log_message(f"{POD} ") == f"{POD} "
