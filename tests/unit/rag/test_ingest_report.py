"""The ingest report of an upload carries findings, says what it could not read, counts secrets."""

from __future__ import annotations

from datetime import UTC, datetime

from domain.knowledge import FindingKind, IngestReport
from rag.chunking.uploads import prepare_document
from rag.ingestion import summarize
from tests.incident_log import FILENAME, FIRST_TIMEOUT_LINE, incident_log

NOW = datetime(2026, 11, 26, 12, 0, tzinfo=UTC)
KEY_BODY = "\n".join(
    "MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun" for _ in range(25)
)
PRIVATE_KEY = f"-----BEGIN RSA PRIVATE KEY-----\n{KEY_BODY}\n-----END RSA PRIVATE KEY-----"


def report_of(filename: str, text: str) -> IngestReport:
    return summarize(prepare_document(filename, text.encode(), max_bytes=10**7, now=NOW))


def test_a_log_reports_its_findings_errors_first_with_line_citations() -> None:
    report = report_of(FILENAME, incident_log())

    assert report.kind == "log"
    assert report.findings[0].kind is FindingKind.PROBLEM
    assert report.findings[0].first.line_start == FIRST_TIMEOUT_LINE
    assert {f.kind for f in report.findings} == set(FindingKind)


def test_a_log_full_of_private_keys_counts_them_as_secrets_not_findings() -> None:
    entries = [f"2026-11-21T14:05:{i:02d}Z INFO installing deploy key {i}" for i in range(10)]
    text = "\n".join(f"{entry}\n{PRIVATE_KEY}" for entry in entries)

    report = report_of("keys.log", text)

    assert report.redactions == 10
    assert report.findings == []
    assert all("REDACTED" not in template for _, template in report.top_messages)
    assert report.top_messages == [(10, "INFO installing deploy key <*>")]


def test_a_log_whose_timestamps_are_not_recognised_says_so() -> None:
    text = "\n".join(f"21.11.2026 14:05:{i:02d} ERROR job {i} failed" for i in range(30))

    report = report_of("odd.log", text)

    assert report.timestamps_unrecognised
    assert report.first_timestamp is None
    assert report.findings[0].first.label() == "odd.log:1"


def test_a_log_with_readable_timestamps_or_a_document_has_nothing_to_say_about_time() -> None:
    log = report_of(FILENAME, incident_log())
    notes = report_of("notes.md", "# Notes\n\nThe pool was resized on Tuesday.\n")

    assert not log.timestamps_unrecognised
    assert log.first_timestamp is not None
    assert not notes.timestamps_unrecognised
    assert (notes.kind, notes.findings) == ("markdown", [])


def test_a_message_logged_from_several_threads_is_counted_once_among_the_most_repeated() -> None:
    threads = ("[nio-8080-exec-6]", "[io-8080-exec-40]")  # Spring cuts names to 15 characters
    lines = [
        f"2026-11-21 14:05:{i:02d}.000  WARN 1 --- {threads[i % 2]} c.z.h.pool.PoolBase"
        "        : HikariPool-1 - Connection is not available"
        for i in range(30)
    ]

    report = report_of("app.log", "\n".join(lines))

    (top,) = report.top_messages
    assert top[0] == 30
