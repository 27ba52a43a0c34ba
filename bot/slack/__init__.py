"""Slack vocabulary.

Action/callback ids, parsing events into typed work, the Web API surface, user-facing errors, and
the Block Kit renderers.
"""
