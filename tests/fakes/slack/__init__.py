"""Fake Slack over real HTTP: the Web API, Socket Mode, signed payloads built from real samples, and
the Block Kit rules every message is checked against."""
