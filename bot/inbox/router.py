"""What the worker does with each inbox item: hand its typed work to one service.

Failures are told where the work came from: in the case thread (replacing a placeholder left
open), or privately to the person who clicked or typed the command.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Sequence

from bot.inbox.work import (
    AlertWork,
    ClickWork,
    CommandWork,
    HomeWork,
    KbAddWork,
    MessageWork,
    OpenCaseWork,
    RcaWork,
    ScoreRequestWork,
    ScoreRunWork,
    ThreadMessage,
    ThreadRef,
    Work,
    load_work,
    payload_as,
)
from bot.services import Services
from bot.slack.errors import BotError, is_expected, user_message
from bot.slack.ids import ActionId, parse_action_id
from bot.slack.render.commands import notice
from storage.queue import InboxItem

logger = logging.getLogger(__name__)

ClickRoute = Callable[..., Awaitable[None]]
"""A service method taking ``work=ClickWork``."""


class Jobs:
    """Routes inbox items to services and reports their failures to people."""

    def __init__(self, services: Services) -> None:
        self._services = services
        clicks, remediation = services.clicks, services.remediation
        self._clicks: dict[ActionId, ClickRoute] = {
            ActionId.ANSWER: clicks.answer,
            ActionId.CANT_GET: clicks.cant_get,
            ActionId.CLOSE_CASE: clicks.close,
            ActionId.REPORT: clicks.report,
            ActionId.SCORE: clicks.score,
            ActionId.APPROVE: remediation.decide,
            ActionId.REJECT: remediation.decide,
            ActionId.FEEDBACK: services.feedback.rate,
        }
        """The one routing table of buttons: every action id and the service that takes it."""

    async def handle(self, item: InboxItem, followers: Sequence[InboxItem]) -> None:
        """Process ``item``; ``followers`` are later messages of its case to answer in one turn."""
        work = load_work(item)
        more = [payload_as(f, MessageWork).message for f in followers]
        services = self._services
        match work:
            case OpenCaseWork():
                await services.opening.open(work=work, work_key=item.dedup_key, more=more)
            case MessageWork():
                messages: list[ThreadMessage] = [work.message, *more]
                await services.turns.take_turn(
                    thread=work.thread, messages=messages, work_key=item.dedup_key
                )
            case ClickWork():
                await self._click(work)
            case AlertWork() | RcaWork():
                await self._alert(work, item.dedup_key)
            case CommandWork():
                await services.commands.run(work=work)
            case KbAddWork():
                await services.runbooks.add(work=work)
            case HomeWork():
                await services.home.publish(work=work)
            case ScoreRequestWork():
                await services.scoring.request_in_thread(work=work)
            case ScoreRunWork():
                await services.scoring.run(work=work)

    @property
    def buttons(self) -> frozenset[ActionId]:
        """The action ids this router sends on to a service."""
        return frozenset(self._clicks)

    async def _click(self, work: ClickWork) -> None:
        action = parse_action_id(work.action_id)
        route = self._clicks.get(action) if action is not None else None
        if route is None:
            raise BotError("That button is not one of mine.")
        await route(work=work)

    async def _alert(self, work: AlertWork | RcaWork, work_key: str) -> None:
        services = self._services
        if isinstance(work, RcaWork):
            await services.analysis.analyse(work=work, work_key=work_key)
        elif services.alerts is None:
            raise BotError("Alerts are not configured (FM_ALERT_CHANNEL).")
        else:
            await services.alerts.handle(work=work, work_key=work_key)

    async def report(self, item: InboxItem, error: BaseException, reference: str) -> None:
        """Tell people, in one short sentence, that this work failed (details stay in the logs)."""
        text = user_message(error, reference=reference)
        level = logging.INFO if is_expected(error) else logging.ERROR
        logger.log(
            level,
            "work failed",
            exc_info=not is_expected(error),
            extra={"reference": reference, "kind": item.kind, "dedup_key": item.dedup_key},
        )
        work = load_work(item)
        if isinstance(work, ScoreRunWork):
            # The judge's work has no person waiting: the scoring's own message says it failed.
            await self._services.scoring.abandon(work=work, reference=reference)
            return
        thread = _thread_of(work)
        if thread is not None:
            await self._in_thread(thread, item.dedup_key, text)
        else:
            await self._privately(work, text)

    async def _in_thread(self, thread: ThreadRef, work_key: str, text: str) -> None:
        services = self._services
        case = await services.cases.by_thread(thread)
        presenter = services.presenter
        if case is None:
            await presenter.surface.post(
                channel=thread.channel_id, thread_ts=thread.thread_ts, message=notice(text)
            )
            return
        rendered = notice(f"⚠️ {text}")
        try:
            at = await presenter.start_placeholder(case, work_key)
            await presenter.replace(case, at, rendered)
        except Exception:
            # Editing is what failed (the message may be gone): say it in a new message.
            logger.warning("could not edit the placeholder", extra={"case_id": case.case_id})
            await presenter.post(case, rendered)

    async def _privately(self, work: Work, text: str) -> None:
        surface = self._services.presenter.surface
        if isinstance(work, ClickWork):
            await surface.whisper(
                channel=work.channel_id,
                user=work.user_id,
                thread_ts=work.thread_ts,
                message=notice(text),
            )
        elif isinstance(work, CommandWork | ScoreRequestWork):
            await surface.whisper(
                channel=work.channel_id,
                user=work.user_id,
                message=notice(text),
                response_url=work.response_url,
            )
        elif isinstance(work, KbAddWork) and work.channel_id:
            await surface.whisper(channel=work.channel_id, user=work.user_id, message=notice(text))


def _thread_of(work: Work) -> ThreadRef | None:
    if isinstance(work, OpenCaseWork | MessageWork | RcaWork):
        return work.thread
    return None
