"""Helpers for the remediation tests: an alert case with strategies, joining its thread, and
deciding on a strategy with its Approve / Reject buttons."""

from __future__ import annotations

from typing import Any

from tests.alerts import crash_looping
from tests.integration.bot.alerts.alert_harness import (
    alert_messages,
    analysis,
    post_alert,
)
from tests.integration.bot.harness import SRE, BotHarness, JsonDict, buttons
from tests.integration.bot.replies import chat_reply
from tests.unit.domain.workflows.catalog_data import (
    RESTART,
    ROLLBACK,
    strategy,
)

OUTSIDER = "W999"


async def alert_case(bot: BotHarness, *strategies: dict[str, Any]) -> str:
    """The crash-looping alert opens its case with these strategies; return the thread ts."""
    chosen = strategies or (strategy(RESTART), strategy(ROLLBACK, confidence=0.5))
    bot.llm.script(*analysis(*chosen))
    await post_alert(bot, crash_looping())
    await bot.settle(expect=2)
    return str(alert_messages(bot)[0]["ts"])


async def join(bot: BotHarness, thread_ts: str, user: str = SRE) -> None:
    """Someone writes in the thread (a turn), which makes them a participant."""
    await bot.reply(thread_ts, "I'm on it, looking at the pods", chat_reply("Thanks."), user=user)


async def decide(
    bot: BotHarness, message: JsonDict, decision: str, *, user: str = SRE, settle: bool = True
) -> int:
    button = next(b for b in buttons(message) if b["action_id"].startswith(f"fm_{decision}"))
    request = bot.slack.payloads.block_action(
        button["action_id"],
        button["value"],
        message=message,
        channel=message_channel(bot),
        user=user,
    )
    status, _ = await bot.send(request)
    if settle:
        await bot.settle()
    return status


def message_channel(bot: BotHarness) -> str:
    return str(bot.runtime.settings.alert_channel)


async def strategies_of(bot: BotHarness, thread_ts: str) -> list[Any]:
    case = await bot.case(thread_ts)
    return await bot.runtime.repositories.remediations.list_for_case(case.case_id)
