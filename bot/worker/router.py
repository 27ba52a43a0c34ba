"""What the worker does with each inbox item: hand its typed work to one service.

Failures are told where the work came from, all in one format (`failure_message`): in the case
thread as a new message, with **Retry** when the work can run again, or privately to the person
who clicked or typed the command. A retried item is the same work to the services: they get the
first try's key, so the retry finds what that try left behind.
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
from bot.services.retries import first_key
from bot.slack.errors import BotError, is_expected, user_message
from bot.slack.ids import ActionId, RetryValue, parse_action_id
from bot.slack.render.commands import notice
from bot.slack.render.errors import SOMETHING_WENT_WRONG, failure_message
from bot.slack.render.message import SlackMessage
from domain.errors import VersionConflictError
from domain.llm import LLMReplyInvalidError, LLMUnavailableError
from domain.queue import InboxItem

logger = logging.getLogger(__name__)

ClickRoute = Callable[..., Awaitable[None]]
"""A service method taking ``work=ClickWork``."""
PASSING = (VersionConflictError, LLMUnavailableError, LLMReplyInvalidError)
"""Errors people are told in words that a later try may not meet (the other expected ones are
answers: a finished case, a refused file come out the same again), so they get a Retry too."""


class Jobs:
    """Routes inbox items to services and reports their failures to people."""

    def __init__(self, services: Services) -> None:
        self._services = services
        clicks, remediation = services.clicks, services.remediation
        self._clicks: dict[ActionId, ClickRoute] = {
            ActionId.ANSWER: clicks.answer,
            ActionId.CORRECT: clicks.answer,
            ActionId.CANT_GET: clicks.cant_get,
            ActionId.CLOSE_CASE: clicks.close,
            ActionId.REPORT: clicks.report,
            ActionId.SCORE: clicks.score,
            ActionId.APPROVE: remediation.decide,
            ActionId.REJECT: remediation.decide,
            ActionId.RETRY: services.retries.retry,
            ActionId.FEEDBACK: services.feedback.rate,
            ActionId.RUN_TOOL: services.tools.run if services.tools else _no_tools,
            ActionId.SKIP_TOOL: services.tools.skip if services.tools else _no_tools,
            ActionId.USE_RUNBOOK: services.memory.use_runbook if services.memory else _no_memory,
            ActionId.CASE_STATUS: services.commands.case_status,
            ActionId.APPLIED: services.steps.applied if services.steps else _no_steps,
            ActionId.NOT_NOW: services.steps.not_now if services.steps else _no_steps,
            ActionId.UNDO: services.steps.undo if services.steps else _no_steps,
            ActionId.DETAILS: _details_late,
            ActionId.STUCK: services.stuck.choose if services.stuck else _no_steps,
        }
        """The one routing table of buttons: every action id and the service that takes it."""

    async def handle(self, item: InboxItem, followers: Sequence[InboxItem]) -> None:
        """Process ``item``; ``followers`` are later messages of its case to answer in one turn."""
        work = load_work(item)
        more = [payload_as(f, MessageWork).message for f in followers]
        services, work_key = self._services, first_key(item.dedup_key)
        match work:
            case OpenCaseWork():
                await services.opening.open(
                    work=work, work_key=work_key, more=more, tried=item.dedup_key
                )
            case MessageWork():
                messages: list[ThreadMessage] = [work.message, *more]
                await services.turns.take_turn(
                    thread=work.thread, messages=messages, work_key=work_key, tried=item.dedup_key
                )
            case ClickWork():
                await self._click(work)
            case AlertWork() | RcaWork():
                await self._alert(work, work_key)
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
        expected = is_expected(error)
        logger.log(
            logging.INFO if expected else logging.ERROR,
            "work failed",
            exc_info=not expected,
            extra={"reference": reference, "kind": item.kind, "dedup_key": item.dedup_key},
        )
        work = load_work(item)
        if isinstance(work, ScoreRunWork):
            # The judge's work has no person waiting: the scoring's own message says it failed.
            await self._services.scoring.abandon(work=work, reference=reference)
            return
        text = user_message(error, reference=reference) if expected else SOMETHING_WENT_WRONG
        thread = _thread_of(work)
        if thread is None:
            # An answer (a refusal, a finished case) is said plainly; a failure with its reference.
            answer = expected and not isinstance(error, PASSING)
            rendered = notice(text) if answer else failure_message(text, reference=reference)
            await self._privately(work, rendered)
            return
        again = not expected or isinstance(error, PASSING)
        retry = RetryValue(work_key=item.dedup_key, reference=reference) if again else None
        await self._in_thread(thread, failure_message(text, reference=reference, retry=retry))

    async def _in_thread(self, thread: ThreadRef, rendered: SlackMessage) -> None:
        """A new message at the bottom of the thread (the case's, when there is one yet)."""
        services = self._services
        case = await services.cases.by_thread(thread)
        if case is None:
            await services.presenter.surface.post(
                channel=thread.channel_id, thread_ts=thread.thread_ts, message=rendered
            )
        else:
            await services.presenter.post(case, rendered)

    async def _privately(self, work: Work, rendered: SlackMessage) -> None:
        surface = self._services.presenter.surface
        if isinstance(work, ClickWork):
            await surface.whisper(
                channel=work.channel_id,
                user=work.user_id,
                thread_ts=work.thread_ts,
                message=rendered,
            )
        elif isinstance(work, CommandWork | ScoreRequestWork):
            await surface.whisper(
                channel=work.channel_id,
                user=work.user_id,
                message=rendered,
                response_url=work.response_url,
                thread_ts=work.thread_ts,
            )
        elif isinstance(work, KbAddWork) and work.channel_id:
            await surface.whisper(channel=work.channel_id, user=work.user_id, message=rendered)


async def _no_tools(*, work: ClickWork) -> None:
    raise BotError("The team's tools are not configured here any more (FM_MCP_CONFIG).")


async def _no_memory(*, work: ClickWork) -> None:
    raise BotError("Past cases cannot be searched here, so there is no runbook to post.")


async def _details_late(*, work: ClickWork) -> None:
    """Details opens its modal in the listener; a click recorded instead found it could not."""
    raise BotError("I couldn't open the details in time: click 🔍 Details again.")


async def _no_steps(*, work: ClickWork) -> None:
    raise BotError("That button is not one of mine.")


def _thread_of(work: Work) -> ThreadRef | None:
    if isinstance(work, OpenCaseWork | MessageWork | RcaWork):
        return work.thread
    return None
