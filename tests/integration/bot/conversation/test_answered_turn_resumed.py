"""A turn that was answered and saved, but whose inbox item was not marked done, runs again after
a restart (or a replica taking over): its answer must stay as it was."""

from __future__ import annotations

from sqlalchemy import update

from domain.queue import InboxStatus
from storage.schema.tables import InboxRow
from tests.integration.bot.harness import BotHarness, text_of
from tests.integration.bot.replies import chat_reply, statement_reply


async def test_a_turn_answered_before_a_crash_keeps_its_answer_when_it_runs_again(
    bot: BotHarness,
) -> None:
    thread_ts = await bot.mention("db-1 is down", statement_reply())
    await bot.reply(thread_ts, "any news?", chat_reply("Replica lag is 40 s on db-2."))
    before = [text_of(m) for m in bot.bot_messages(thread_ts)]
    calls, posts = len(bot.llm.requests), len(bot.slack.calls_to("chat.postMessage"))

    # The process died between saving the turn and marking its item done: it is resumed.
    async with bot.runtime.database.begin() as connection:
        await connection.execute(
            update(InboxRow)
            .where(InboxRow.kind == "message")
            .values(status=InboxStatus.PENDING.value, locked_at=None, locked_by=None)
        )
    await bot.runtime.worker.wait_idle()

    after = [text_of(m) for m in bot.bot_messages(thread_ts)]
    assert sum("Replica lag is 40 s on db-2." in text for text in after) == 1
    assert not [text for text in after if "restarted" in text]
    assert len(after) == len(before)
    assert (len(bot.llm.requests), len(bot.slack.calls_to("chat.postMessage"))) == (calls, posts)
