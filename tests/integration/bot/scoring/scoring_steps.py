"""Steps and scripted judge replies for the scoring scenarios through the Slack layer."""

from __future__ import annotations

from typing import Any

from domain.lifecycle.status import CaseStatus
from domain.scoring.model import SessionScore
from tests.fakes.models.llm_server import Scripted, reply
from tests.integration.bot.harness import (
    CHANNEL,
    OPENER,
    BotHarness,
    eventually,
    with_buttons,
)
from tests.integration.bot.replies import statement_reply

JsonDict = dict[str, Any]

EVALUATION = """However, the investigation reached its conclusion without ever asking for the
database's connection metrics. It should have asked for pool saturation before closing.

Logical Flow: 14/25
Consistency: 16/25
Tool Relevance: 11/25
Synthesis Quality: 17/25

58"""
MISSING_TOOLS = """1. **Pool metrics** (`pg_stat_activity`): would have shown exhaustion directly.
2. **Deploy history** of payments-api: would have tied the start of the errors to a change."""


def judge(evaluation: str = EVALUATION, missing: str = MISSING_TOOLS) -> list[Scripted]:
    """The judge's two turns, scripted."""
    return [reply(evaluation), reply(missing)]


async def closed_case(bot: BotHarness, text: str = "db-1 is down") -> str:
    """A case opened, then closed through the header's Close button and a Yes."""
    thread_ts = await bot.mention(text, statement_reply())
    await bot.click(bot.bot_messages(thread_ts)[0], action_prefix="fm_close_case")
    question = with_buttons(bot.bot_messages(thread_ts), "fm_answer")[-1]
    await bot.click(question, decision="yes")
    assert (await bot.case(thread_ts)).status is CaseStatus.CLOSED
    return thread_ts


async def fm(bot: BotHarness, text: str, *, expect: int = 1, user: str = OPENER) -> JsonDict:
    """`/fm <text>`: wait for the ``expect`` items it records to be done; return the answer."""
    answered = len(bot.slack.responses)
    status, body = await bot.send(
        bot.slack.payloads.slash_command(text, user_id=user, channel_id=CHANNEL)
    )
    assert status == 200, body
    await bot.settle(expect=expect)
    await bot.slack.wait_for("response_url", answered + 1)
    response = bot.slack.responses[answered]
    assert response["response_type"] == "ephemeral"
    return response


async def latest_scoring(bot: BotHarness, thread_ts: str) -> SessionScore:
    case = await bot.case(thread_ts)
    found = await bot.runtime.repositories.scores.latest_for_case(case.case_id)
    assert found is not None
    return found


def scoring_message(bot: BotHarness, score: SessionScore) -> JsonDict:
    assert score.message_ts is not None
    found = bot.slack.message(CHANNEL, score.message_ts)
    assert found is not None
    return found


def updates_of(bot: BotHarness, ts: str) -> list[JsonDict]:
    """Every chat.update of one message, in order."""
    return [c for c in bot.slack.calls_to("chat.update") if c["ts"] == ts]


async def wait_for_update(bot: BotHarness, ts: str, text: str) -> None:
    await eventually(lambda: any(text in str(u) for u in updates_of(bot, ts)), seconds=10)
