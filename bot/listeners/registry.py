"""Every listener module, in the order Bolt must see them, and registering them on the app."""

from __future__ import annotations

from slack_bolt.app.async_app import AsyncApp

from bot.listeners import actions, commands, errors, home, messages, shortcuts, unknown, views
from bot.services import Services

MODULES = (messages, home, commands, shortcuts, actions, views, unknown, errors)
"""In registration order: Bolt runs the first listener that matches, so `unknown`'s catch-alls
come after every listener of a known id."""


def register_all(app: AsyncApp, services: Services) -> None:
    """Register every listener module on ``app``."""
    for module in MODULES:
        module.register(app, services)
