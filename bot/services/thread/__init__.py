"""Showing a case in its thread.

The presenter posts and edits the case's messages, `refs` remembers where each one is, and
`waiting` shows that the bot is working (a status line, or a reaction where Slack allows no status).
"""
