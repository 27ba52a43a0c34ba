"""A confident root cause that overreaches its evidence is shown lowered, its gap named."""

from __future__ import annotations

from domain.engine.second_look import NONE_SHOWN_CAP, SecondLookReply
from domain.llm import LLMCallOutcome
from tests.fakes.models.llm_server import reply
from tests.fakes.slack.server import FakeSlack
from tests.integration.bot.harness import BotHarness, text_of, with_buttons
from tests.integration.bot.replies import statement_reply
from tests.integration.engine.thread import json_reply

GAP = "the v3.2.0 deploy shortened the session lifetime"


async def test_an_overreaching_root_cause_is_shown_lowered_with_what_is_not_shown_yet(
    bot: BotHarness, slack: FakeSlack
) -> None:
    thread_ts = await bot.mention(
        "shoppers are logged out at random since 10:20", statement_reply()
    )
    (question,) = with_buttons(bot.bot_messages(thread_ts), "fm_answer")
    bot.llm.script(json_reply("Share the web log since 10:00."))
    await bot.click(question, decision="yes")
    overreach = json_reply(
        "Root cause: the deploy shortened the session lifetime.",
        root_cause_conclusion={
            "root_cause": "The v3.2.0 deploy shortened the session lifetime",
            "confidence_score": 0.9,
            "mechanism": "sessions expire within minutes",
            "evidence_basis": ["deploy-diff"],
        },
    )
    check = SecondLookReply.model_validate(
        {"links": [{"claim": GAP, "evidence": [], "shown": False}], "supported_confidence": 0.4}
    )

    await bot.reply(thread_ts, "we deployed web v3.2.0 at 10:05", overreach, reply(check))

    case = await bot.case(thread_ts)
    assert case.root_cause_conclusion is not None
    assert case.root_cause_conclusion.confidence_score == NONE_SHOWN_CAP
    shown = "\n".join(text_of(m) for m in bot.bot_messages(thread_ts))
    assert f"not shown yet: {GAP}" in shown
    asked = "\n".join(str(m["content"]) for m in bot.llm.requests[-1]["messages"])
    assert "deploy-diff (not held by the case)" in asked
    (record,) = [r for r in bot.llm_calls.records if r.template == "second_look"]
    assert (record.case_id, record.outcome) == (case.case_id, LLMCallOutcome.OK)
    assert slack.invalid_payloads == []
