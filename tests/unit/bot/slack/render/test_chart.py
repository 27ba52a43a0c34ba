"""A range query's chart: a PNG of its series and a description within Slack's limit."""

from __future__ import annotations

import json

from bot.slack.render.case.chart import ALT_TEXT_MAX, MAX_SERIES, alt_text, chart_png
from domain.tools.series import Series, range_series

START = 1_795_000_000.0


def matrix(count: int, points: int = 30) -> str:
    result = [
        {
            "metric": {"__name__": "http_requests", "status": str(500 + n), "pod": f"api-{n}"},
            "values": [[START + 60 * i, str(n + i % 5)] for i in range(points)],
        }
        for n in range(count)
    ]
    return json.dumps({"resultType": "matrix", "result": result})


def test_a_prometheus_matrix_reads_as_labelled_series_in_time_order() -> None:
    series = range_series(matrix(2, points=3))
    assert series is not None
    assert [s.label for s in series] == [
        "http_requests{pod=api-0, status=500}",
        "http_requests{pod=api-1, status=501}",
    ]
    assert series[1].points == ((START, 1.0), (START + 60, 2.0), (START + 120, 3.0))


def test_what_is_not_a_matrix_has_no_series_and_bad_points_are_left_out() -> None:
    assert range_series("up 1") is None
    assert range_series(json.dumps({"status": "ok"})) is None
    odd = {"result": [{"metric": {}, "values": [[START, "NaN"], [START, "x"], [START, "2"]]}]}
    (series,) = range_series(json.dumps({"data": odd})) or []
    assert series.points == ((START, 2.0),)


def test_the_chart_is_a_png_and_its_description_says_the_last_and_highest_values() -> None:
    series = range_series(matrix(1)) or []
    data = chart_png(series, title="prometheus:execute_range_query#2 (14:05–14:35Z)")
    assert data.startswith(b"\x89PNG\r\n\x1a\n")
    described = alt_text(series, title="prometheus:execute_range_query#2")
    assert described.startswith("Line chart of prometheus:execute_range_query#2: 1 series from")
    assert "last 4, highest 4" in described


def test_many_long_series_stay_within_slacks_description_limit() -> None:
    long = [Series("x" * 500, ((START, 1.0), (START + 60, 2.0))) for _ in range(50)]
    assert len(alt_text(long, title="t")) <= ALT_TEXT_MAX
    assert f"{MAX_SERIES} series" in alt_text(long, title="t")
    assert chart_png(long, title="t").startswith(b"\x89PNG")
