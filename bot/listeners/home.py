"""App Home: `app_home_opened` publishes the person's home tab (through the inbox)."""

from __future__ import annotations

from typing import Any

from slack_bolt.app.async_app import AsyncApp

from bot.inbox.work import HomeWork
from bot.services import Services
from bot.slack.ids import EventType


def register(app: AsyncApp, services: Services) -> None:
    """Listen to `app_home_opened`."""

    @app.event(EventType.APP_HOME_OPENED.value)
    async def on_home_opened(body: dict[str, Any], event: dict[str, Any]) -> None:
        if event.get("tab", "home") != "home":
            return
        work = HomeWork(team_id=str(body.get("team_id", "")), user_id=str(event["user"]))
        await services.intake.home(work, dedup_key=str(body.get("event_id")))
