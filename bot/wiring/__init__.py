"""The composition root.

Builds settings into ports, services, the Slack app and the alert pipeline. Nothing else constructs
anything.
"""


class StartupError(Exception):
    """The bot cannot start with these settings; the message says what to change."""
