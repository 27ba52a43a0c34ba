"""Markdown by heading, configs by top-level key, prose by paragraph, all with line numbers."""

from __future__ import annotations

from datetime import UTC, datetime

from rag.chunking.chunks import DocumentKind
from rag.chunking.configs import ini_chunks, json_chunks, yaml_chunks
from rag.chunking.documents import markdown_chunks, markdown_title, text_chunks
from rag.chunking.uploads import prepare_document

NOW = datetime(2026, 11, 21, 12, 0, tzinfo=UTC)
RUNBOOK = """---
title: Database timeouts
---

# DB Timeout Runbook

## Diagnosis

Check the pool.

```shell
# not a heading
kubectl get pods
```

### Pool exhausted

Raise max_connections.

## Mitigation

Restart the pods.
""".splitlines()


def test_markdown_sections_keep_their_heading_path_and_lines() -> None:
    chunks = markdown_chunks(RUNBOOK, "DB Timeout Runbook")

    found = [(c.section, c.line_start, c.line_end) for c in chunks]
    assert found == [
        ("DB Timeout Runbook › Diagnosis", 1, 14),
        ("DB Timeout Runbook › Diagnosis › Pool exhausted", 16, 18),
        ("DB Timeout Runbook › Mitigation", 20, 22),
    ]
    assert chunks[1].text == "\n".join(RUNBOOK[15:18])
    assert chunks[1].embed_text.startswith("DB Timeout Runbook › Diagnosis › Pool exhausted\n")


def test_the_title_is_the_first_top_level_heading() -> None:
    assert markdown_title(RUNBOOK, "fallback.md") == "DB Timeout Runbook"
    assert markdown_title(["just text"], "fallback.md") == "fallback.md"


def test_yaml_is_cut_at_top_level_keys_with_their_lines() -> None:
    lines = [
        "apiVersion: v1",
        "kind: ConfigMap",
        "metadata:",
        "  name: db",
        "  namespace: prod",
        "  labels:",
        "    app: db",
        "data:",
        "  timeout: '30000'",
        "  max_connections: '100'",
        "  pool: '10'",
    ]

    chunks = yaml_chunks(lines, "db.yaml")

    assert [(c.section, c.line_start, c.line_end) for c in chunks] == [
        ("apiVersion, kind, metadata", 1, 7),
        ("data", 8, 11),
    ]


def test_json_is_cut_at_top_level_keys() -> None:
    lines = ["{", '  "database": {', '    "timeout": 30000,', '    "url": "x{"', "  },"]
    lines += ['  "cache": {', '    "ttl": 60', "  }", "}"]

    chunks = json_chunks(lines, "config.json")

    assert [(c.section, c.line_start, c.line_end) for c in chunks] == [
        ("database", 1, 5),
        ("cache", 6, 9),
    ]


def test_ini_is_cut_at_sections() -> None:
    lines = [
        "debug = true",
        "",
        "[database]",
        "timeout = 30",
        "host = db",
        "port = 5432",
        "[cache]",
    ]
    lines += ["ttl = 60", "size = 100", "evict = lru"]

    chunks = ini_chunks(lines, "app.ini")

    assert [(c.section, c.line_start, c.line_end) for c in chunks] == [
        ("database", 1, 6),
        ("cache", 7, 10),
    ]


def test_prose_is_cut_by_paragraph_within_a_size() -> None:
    paragraph = ["word " * 30] * 4 + [""]
    chunks = text_chunks(paragraph * 6, "notes.txt")

    assert len(chunks) > 1
    assert all(c.line_end - c.line_start < 60 for c in chunks)
    assert chunks[0].line_start == 1


def test_kind_comes_from_the_suffix_or_from_timestamps() -> None:
    log = b"2025-10-21T14:00:00Z INFO a\n2025-10-21T14:00:01Z ERROR b\n"

    assert prepare_document("output", log, max_bytes=10**6, now=NOW).kind is DocumentKind.LOG
    assert prepare_document("notes", b"hello\n", max_bytes=10**6, now=NOW).kind is (
        DocumentKind.TEXT
    )
    assert prepare_document("a.yml", b"a: 1\n", max_bytes=10**6, now=NOW).kind is (
        DocumentKind.CONFIG
    )
