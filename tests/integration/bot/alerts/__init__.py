"""Alerts end to end: Alertmanager webhooks into threads, analysis and remediation approval."""
