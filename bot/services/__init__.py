"""Use-case services: ports in the constructor, keyword-only async methods.

They decide what happens to a case and hand what is to be shown to the case thread
(`bot/thread`); none of them draws a Slack message or imports Slack's SDK.
"""

from bot.services.catalog import Services

__all__ = ["Services"]
