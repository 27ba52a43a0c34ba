"""Slack vocabulary.

Action/callback ids, Slack's file objects as file refs, the Web API surface (observed), user-facing
errors, and the Block Kit renderers. Parsing what Slack sends into the queue's work is the
listeners' (`bot.listeners.parsing`).
"""
