"""Use cases of an alert.

Intake into a case (its message and thread), the root-cause analysis and workflow choice, and
remediation approval. Work that Slack being briefly down cuts short asks the worker to take it
again later (`bot.inbox.retry.RetryLater`).
"""
