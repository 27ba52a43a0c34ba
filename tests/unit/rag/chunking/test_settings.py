"""Settings a log dumps, one per line or in one JSON line: a value that changes is a finding."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from domain.knowledge import Finding, FindingKind
from rag.chunking.findings import log_findings
from rag.chunking.settings import is_counter
from rag.chunking.templates import build_templates
from rag.chunking.timestamps import parser_for

NOW = datetime(2026, 11, 26, 12, 0, tzinfo=UTC)
_START = datetime(2026, 11, 24, 9, 0, tzinfo=UTC)
APP = "c.a.billing.BillingApplication"


def findings_of(lines: list[str]) -> list[Finding]:
    parser = parser_for(lines, NOW)
    return log_findings("billing.log", lines, build_templates(lines, parser), parser)


def changes(lines: list[str]) -> list[Finding]:
    return [f for f in findings_of(lines) if f.kind is FindingKind.CHANGED]


def stamp(second: int) -> str:
    return (_START + timedelta(seconds=second)).strftime("%Y-%m-%dT%H:%M:%SZ")


def traffic(first: int, count: int) -> list[str]:
    return [
        f"{stamp(first + i)} INFO [worker-1] {APP} - invoice {i} sent in {i % 9}ms"
        for i in range(count)
    ]


def started(second: int, dump: list[str]) -> list[str]:
    return [f"{stamp(second)} INFO [main] {APP} - Effective configuration:", *dump]


def log_with(first_dump: list[str], second_dump: list[str]) -> list[str]:
    return [
        *started(0, first_dump),
        *traffic(10, 40),
        *started(60, second_dump),
        *traffic(70, 30),
        f"{stamp(200)} ERROR [worker-1] {APP} - invoice batch failed: pool exhausted",
    ]


def yaml_dump(pool: int) -> list[str]:
    return [
        "  pool:",
        f"    maxSize: {pool}",
        "    timeout: 30s",
        "  cache:",
        "    maxSize: 1000",
        "    policy: lru",
    ]


def test_a_nested_key_value_dump_with_a_new_value_is_a_change_named_by_its_path() -> None:
    lines = log_with(yaml_dump(50), yaml_dump(10))

    (changed,) = changes(lines)

    assert changed.changed == "pool.maxSize: 50 → pool.maxSize: 10"
    assert changed.since is not None
    assert lines[(changed.since.line_start or 0) - 1] == "    maxSize: 10"
    assert changed.first.line_start == 3
    assert changed.since.timestamp == _START + timedelta(seconds=60)


def json_dump(records: int, reset: str) -> list[str]:
    return [
        "{",
        '  "consumer": {',
        f'    "max.poll.records": {records},',
        f'    "auto.offset.reset": "{reset}",',
        '    "session.timeout.ms": 45000',
        "  }",
        "}",
    ]


def test_a_pretty_printed_json_dump_changes_are_found_words_as_well_as_amounts() -> None:
    lines = log_with(json_dump(500, "latest"), json_dump(5000, "earliest"))

    said = sorted(f.changed or "" for f in changes(lines))

    assert said == [
        'consumer.auto.offset.reset: "latest" → consumer.auto.offset.reset: "earliest"',
        "consumer.max.poll.records: 500 → consumer.max.poll.records: 5000",
    ]


def test_a_setting_in_a_one_line_json_message_is_read_as_a_setting() -> None:
    def config(pool: int) -> str:
        return f'INFO [main] {APP} - pool config {{"maxPoolSize": {pool}, "minIdle": 5}}'

    lines = [
        f"{stamp(0)} {config(50)}",
        *traffic(1, 50),
        f"{stamp(60)} {config(10)}",
        *traffic(61, 30),
    ]

    (changed,) = changes(lines)

    assert changed.changed == "maxPoolSize: 50 → maxPoolSize: 10"
    assert changed.since is not None
    assert changed.since.line_start == 52


def kafka_dump(client: str, buffer: int) -> list[str]:
    return [
        f"\tclient.id = {client}",
        f"\treceive.buffer.bytes = {buffer}",
        "\trequest.timeout.ms = 30000",
        "",
    ]


def test_a_consumer_and_a_producer_dump_with_the_same_keys_are_not_compared() -> None:
    lines = [
        f"{stamp(0)} INFO [main] o.a.k.clients.consumer.ConsumerConfig - ConsumerConfig values: ",
        *kafka_dump("consumer-billing-1", 65536),
        f"{stamp(1)} INFO [main] o.a.k.clients.producer.ProducerConfig - ProducerConfig values: ",
        *kafka_dump("producer-1", 32768),
        *traffic(2, 60),
        f"{stamp(70)} INFO [main] o.a.k.clients.consumer.ConsumerConfig - ConsumerConfig values: ",
        *kafka_dump("consumer-billing-2", 65536),
        *traffic(71, 20),
    ]

    assert changes(lines) == []


def test_stack_traces_and_values_that_differ_on_every_start_are_no_changes() -> None:
    def start(second: int, generation: int, cause: str, column: str) -> list[str]:
        return [
            f"{stamp(second)} INFO [main] {APP} - Kafka startTimeMs: {1795500000000 + second}",
            f"{stamp(second)} INFO [main] {APP} - generationId={generation} pid={4000 + second}",
            f"{stamp(second)} WARN [main] {APP} - warm-up failed",
            f"java.lang.IllegalStateException: {cause}",
            "\tat c.a.billing.Warmup.run(Warmup.java:42)",
            f"Detail: Key ({column})=(5) already exists.",
        ]

    lines = [
        *start(0, 41, "pool exhausted", "id"),
        *traffic(1, 50),
        *start(60, 42, "connection closed", "invoice_no"),
        *traffic(61, 30),
    ]

    assert changes(lines) == []


@pytest.mark.parametrize(
    ("key", "counter"),
    [
        ("startTimeMs", True),
        ("generationId", True),
        ("client.id", True),
        ("last_offset", True),
        ("max.poll.records", False),
        ("max.poll.interval.ms", False),
        ("maximumPoolSize", False),
        ("connectionTimeout", False),
    ],
)
def test_keys_naming_ids_times_and_offsets_are_counters(key: str, counter: bool) -> None:
    assert is_counter(key) is counter


def test_a_setting_in_json_lines_logged_again_with_another_value_is_a_change() -> None:
    def entry(second: int, level: str, fields: str) -> str:
        return f'{{"ts":"{stamp(second)}","level":"{level}",{fields}}}'

    pool = '"logger":"pool","msg":"pool configured","maxPoolSize":{size},"minIdle":5'
    health = '"logger":"http","msg":"GET /health","status":200,"duration_ms":{ms}'
    lines = [
        entry(0, "info", pool.format(size=50)),
        *(entry(i, "info", health.format(ms=i % 7)) for i in range(1, 60)),
        entry(61, "info", pool.format(size=10)),
        *(entry(i, "error", '"logger":"pool","msg":"pool exhausted"') for i in range(62, 70)),
    ]

    (changed,) = changes(lines)

    assert changed.changed == "maxPoolSize:50 → maxPoolSize:10"
    assert changed.since is not None
    assert changed.since.line_start == 61
