"""Use cases of an alert.

Intake into a case, the root-cause analysis, remediation approval, and deferral when Slack is
briefly down.
"""
