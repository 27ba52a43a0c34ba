"""Log windows keep line numbers, time range and worst severity; vectors come from templates."""

from __future__ import annotations

from datetime import UTC, datetime

import numpy as np

from rag.chunking.logs import cut_windows, window_chunks, window_vectors
from rag.chunking.templates import build_templates
from rag.chunking.timestamps import parser_for

NOW = datetime(2026, 11, 21, 12, 0, tzinfo=UTC)


def log(count: int) -> list[str]:
    return [f"2025-10-21T14:{i // 60:02d}:{i % 60:02d}Z INFO request {i} ok" for i in range(count)]


def test_windows_cover_every_line_once_in_order() -> None:
    lines = log(45)
    table = build_templates(lines, parser_for(lines, NOW))

    windows = cut_windows(table, size=20)

    assert windows.starts.tolist() == [0, 20, 40]
    assert windows.ends.tolist() == [20, 40, 45]


def test_a_stack_trace_stays_with_the_entry_it_belongs_to() -> None:
    lines = [
        *log(19),
        "2025-10-21T14:00:19Z ERROR request failed",
        "java.lang.IllegalStateException: pool exhausted",
        "\tat com.example.Pool.get(Pool.java:42)",
        "\tat com.example.Api.handle(Api.java:7)",
        *log(5),
    ]
    table = build_templates(lines, parser_for(lines, NOW))

    windows = cut_windows(table, size=20)

    assert windows.ends.tolist()[0] == 23


def test_chunks_carry_lines_times_and_the_worst_severity() -> None:
    lines = [*log(3), "2025-10-21T14:00:03Z ERROR disk full", "2025-10-21T14:00:04Z WARN slow"]
    parser = parser_for(lines, NOW)
    table = build_templates(lines, parser)

    (chunk,) = window_chunks(lines, table, cut_windows(table), parser)

    assert (chunk.line_start, chunk.line_end) == (1, 5)
    assert chunk.text == "\n".join(lines)
    assert chunk.ts_first == datetime(2025, 10, 21, 14, 0, 0, tzinfo=UTC)
    assert chunk.ts_last == datetime(2025, 10, 21, 14, 0, 4, tzinfo=UTC)
    assert chunk.severity_rank == 40


def test_blank_windows_are_skipped() -> None:
    lines = log(2) + [""] * 40 + log(2)
    table = build_templates(lines, parser_for(lines, NOW))

    windows = cut_windows(table, size=20)

    assert all(lines[start].strip() or start != 20 for start in windows.starts.tolist())
    assert len(windows) == 2


def test_a_window_vector_leans_towards_its_rare_template() -> None:
    lines = ["2025-10-21T14:00:00Z INFO heartbeat ok"] * 39 + ["2025-10-21T14:00:00Z ERROR disk"]
    table = build_templates(lines, parser_for(lines, NOW))
    windows = cut_windows(table, size=20)
    common, rare = np.eye(2, 4, dtype=np.float32)

    vectors = window_vectors(table, windows, np.stack([common, rare]))

    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0)
    assert vectors[0] @ common > 0.99
    assert vectors[1] @ rare > vectors[1] @ common
