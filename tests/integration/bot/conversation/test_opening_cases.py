"""Opening cases: by mention and by the Investigate shortcut; the header lives at the top."""

from __future__ import annotations

from domain.lifecycle.status import CaseStatus
from tests.fakes.slack.server import FakeSlack
from tests.integration.bot.harness import (
    CHANNEL,
    OPENER,
    SRE,
    BotHarness,
    buttons,
    text_of,
    with_buttons,
)
from tests.integration.bot.replies import STATEMENT, statement_reply


async def test_a_mention_opens_a_case_with_a_header_and_a_reply_asking_its_question(
    bot: BotHarness, slack: FakeSlack
) -> None:
    thread_ts = await bot.mention("payments API returns 500s since 14:05", statement_reply())

    header, answer = bot.bot_messages(thread_ts)  # the question is at the answer's foot
    case = await bot.case(thread_ts)
    assert case.short_id in text_of(header)
    assert "Being described" in text_of(header)
    assert [b["action_id"] for b in buttons(header)] == ["fm_close_case"]
    assert STATEMENT in text_of(answer)
    assert [b["action_id"] for b in buttons(answer)] == ["fm_answer:yes", "fm_correct:no"]
    assert case.status is CaseStatus.CONSULTING
    assert case.user_id == OPENER
    assert slack.invalid_payloads == []


async def test_the_investigate_shortcut_opens_a_case_on_any_message(
    bot: BotHarness, slack: FakeSlack
) -> None:
    alert = slack.add_message(
        CHANNEL, "[FIRING] PaymentsHighErrorRate 31% 5xx on payments-api", user="W999"
    )
    bot.llm.script(statement_reply())

    status, _ = await bot.send(
        slack.payloads.message_shortcut("fm_investigate", message=alert, user=SRE)
    )
    await bot.settle()

    assert status == 200
    case = await bot.case(alert["ts"])
    assert case.user_id == SRE
    assert "PaymentsHighErrorRate" in bot.llm_prompts()
    assert len(with_buttons(bot.bot_messages(alert["ts"]), "fm_answer")) == 1
    assert slack.invalid_payloads == []
