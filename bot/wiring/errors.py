"""Why the bot cannot start: the one error the composition root raises for its settings."""


class StartupError(Exception):
    """The bot cannot start with these settings; the message says what to change."""
