"""Secrets pasted into the thread (not uploaded) never reach the model, the database or the KB.

What people write is redacted when it is recorded: a mention, a reply, the message an
Investigate shortcut is used on, and a runbook from the `kb add` form.
"""

from __future__ import annotations

import json

from tests.fakes.knowledge import FakeKnowledge
from tests.fakes.slack.server import FakeSlack
from tests.integration.bot.harness import CHANNEL, OPENER, SRE, BotHarness
from tests.integration.bot.replies import chat_reply, statement_reply

PASSWORD = "Sup3rS3cret-pw"
TOKEN = "ghp_R4nd0mT0k3nV4lu3Abcdefghij0123456789"
DSN_PASSWORD = "dsn-Pa55word"


def everything_kept(bot: BotHarness) -> str:
    """What the bot recorded in its inbox and sent to the model."""
    recorded = json.dumps([item.payload for item in bot.recorded])
    return recorded + bot.llm_prompts()


async def test_a_mention_and_a_reply_are_redacted_before_anything_keeps_them(
    bot: BotHarness,
) -> None:
    thread_ts = await bot.mention(
        f"payments can't reach the db since 14:05, DB_PASSWORD={PASSWORD} in the pod env",
        statement_reply(),
    )
    await bot.reply(
        thread_ts,
        "ran it with the ops token:\n```\n"
        f"curl -H 'Authorization: Bearer {TOKEN}' https://api.internal/health\n"
        f"psql postgresql://app:{DSN_PASSWORD}@db.internal:5432/payments\n```",
        chat_reply("Let us look at the database connections."),
    )

    case = await bot.case(thread_ts)
    kept = everything_kept(bot) + case.model_dump_json()
    for secret in (PASSWORD, TOKEN, DSN_PASSWORD):
        assert secret not in kept
    assert "payments can't reach the db since 14:05" in bot.llm_prompts()
    assert "db.internal:5432/payments" in bot.llm_prompts()


async def test_the_message_an_investigate_shortcut_is_used_on_is_redacted(
    bot: BotHarness, slack: FakeSlack
) -> None:
    alert = slack.add_message(
        CHANNEL, f"payments-api 5xx: upstream auth failed, api_key={TOKEN}", user="W999"
    )
    bot.llm.script(statement_reply())

    await bot.send(slack.payloads.message_shortcut("fm_investigate", message=alert, user=SRE))
    await bot.settle()

    case = await bot.case(alert["ts"])
    assert TOKEN not in everything_kept(bot) + case.model_dump_json()
    assert "upstream auth failed" in bot.llm_prompts()


async def test_a_runbook_from_the_form_is_saved_without_its_secrets(
    bot: BotHarness, slack: FakeSlack, knowledge: FakeKnowledge
) -> None:
    await bot.send(slack.payloads.slash_command("kb add", user_id=OPENER))
    (opened,) = await slack.wait_for("views.open")
    body = f"1. export PGPASSWORD={PASSWORD}\n2. psql -h db -c 'select 1'"
    values = {
        "fm_kb_title": {"fm_kb_title": {"type": "plain_text_input", "value": "Check the db"}},
        "fm_kb_body": {"fm_kb_body": {"type": "plain_text_input", "value": body}},
    }

    await bot.send(
        slack.payloads.view_submission(
            "fm_kb_add", values, private_metadata=opened["view"]["private_metadata"], user=OPENER
        )
    )
    await bot.settle()

    (saved,) = knowledge.saved
    assert PASSWORD not in saved.markdown
    assert "psql -h db -c 'select 1'" in saved.markdown
    assert PASSWORD not in everything_kept(bot)
