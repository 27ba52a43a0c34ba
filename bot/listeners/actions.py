"""Button clicks: recorded in the case's order (the action id + action ts deduplicates them).

No on a problem statement opens a form to correct it here, in the listener: Slack honours a
click's trigger id for three seconds only, and opening a form changes nothing. If the form cannot
be opened (the question is answered, the person may not answer it, the trigger expired), the
click is recorded like any other, and its turn asks what to correct. An answer's **Details**
opens its modal here too, from the reply kept under the work key its button names (one read of
the case and one of the kept reply); a click that could not open it is recorded, and the person
is told privately to click again.
"""

from __future__ import annotations

import logging
import re
from typing import Any

from slack_bolt.app.async_app import AsyncApp
from slack_bolt.context.ack.async_ack import AsyncAck
from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from bot.inbox.work import ClickWork
from bot.listeners.parsing import parse_click
from bot.services import Services
from bot.slack.ids import ActionId, DetailsValue, InvalidValueError, load_value, parse_action_id
from bot.slack.render.views import correction_modal
from domain.errors import NotFoundError

logger = logging.getLogger(__name__)

OUR_ACTIONS = re.compile(rf"^({'|'.join(re.escape(a.value) for a in ActionId)})(:.*)?$")


def register(app: AsyncApp, services: Services) -> None:
    """Listen to every ActionId (with or without its suffix)."""

    @app.action(OUR_ACTIONS)
    async def on_click(ack: AsyncAck, body: dict[str, Any], client: AsyncWebClient) -> None:
        work, dedup_key = parse_click(body)
        if parse_action_id(work.action_id) is ActionId.DETAILS:
            await ack()
            if not await _open_details(services, work, body.get("trigger_id") or "", client):
                await services.intake.click(work, dedup_key=dedup_key)
            return
        if parse_action_id(work.action_id) is ActionId.CORRECT:
            form = await services.clicks.correction_form(work)
            if form is not None:
                await ack()
                try:
                    view = correction_modal(form.statement, form.origin)
                    await client.views_open(trigger_id=body.get("trigger_id") or "", view=view)
                    return
                except SlackApiError as error:
                    logger.info("correction form not opened", extra={"error": str(error)})
                await services.intake.click(work, dedup_key=dedup_key)
                return
        await services.intake.click(work, dedup_key=dedup_key)
        await ack()


async def _open_details(
    services: Services, work: ClickWork, trigger_id: str, client: AsyncWebClient
) -> bool:
    """Open the Details modal of the answer clicked; False when it could not be opened."""
    try:
        value = load_value(DetailsValue, work.value)
        case = await services.cases.get(value.case_id)
        if case.team_id != work.team_id:
            return False
        view = await services.presenter.details(case, value.key)
        if view is None:
            return False
        await client.views_open(trigger_id=trigger_id, view=view)
        return True
    except (InvalidValueError, NotFoundError, SlackApiError) as error:
        logger.info("details not opened", extra={"error": str(error)})
        return False
