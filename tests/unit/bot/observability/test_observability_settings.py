"""The settings of watching the bot: FM_LOG_FORMAT, FM_METRICS_PORT, OTEL_EXPORTER_OTLP_ENDPOINT."""

from __future__ import annotations

import pytest

from bot.settings import SettingsError, load_settings


def test_by_default_logs_are_text_metrics_only_on_the_http_port_and_no_tracing() -> None:
    settings = load_settings({}, env_file=None)

    assert settings.log_format == "text"
    assert settings.metrics_port is None
    assert settings.otel_endpoint is None


def test_the_log_format_is_case_insensitive() -> None:
    assert load_settings({"FM_LOG_FORMAT": "JSON"}, env_file=None).log_format == "json"


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("FM_LOG_FORMAT", "yaml"),
        ("FM_METRICS_PORT", "0"),
        ("FM_METRICS_PORT", "70000"),
        ("OTEL_EXPORTER_OTLP_ENDPOINT", "otel-collector:4318"),
    ],
)
def test_a_bad_value_stops_start_up_naming_the_variable(name: str, value: str) -> None:
    with pytest.raises(SettingsError, match=name):
        load_settings({name: value}, env_file=None)


def test_a_metrics_port_and_an_otlp_endpoint_are_read() -> None:
    settings = load_settings(
        {"FM_METRICS_PORT": "9464", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318"},
        env_file=None,
    )

    assert settings.metrics_port == 9464
    assert settings.otel_endpoint == "http://collector:4318"
