"""Watching the bot: Prometheus metrics, OpenTelemetry traces (when configured) and log set-up.

The rest of the bot calls the small functions here (`observe_*`, `span`, `log_context`); the
process wires them once (`configure_logging`, `configure_tracing`, the `/metrics` route).
"""
