"""Turns in a case thread: every human message counts, bots never do, each delivery once."""

from __future__ import annotations

import asyncio

from bot.inbox.work import ThreadMessage, ThreadRef
from domain.engine.present import ReplyParts, build_reply, seen
from domain.engine.view import ReplyKind
from domain.records import ConversationMessage, MessageRole
from tests.fakes.models.llm_server import delayed, status
from tests.fakes.slack.samples import next_ts
from tests.fakes.slack.server import FakeSlack
from tests.integration.bot.budget import ThreadBudget
from tests.integration.bot.harness import (
    CHANNEL,
    MODEL_TIMEOUT_S,
    OPENER,
    SRE,
    BotHarness,
    eventually,
    text_of,
)
from tests.integration.bot.replies import chat_reply, statement_reply


async def test_later_messages_in_the_thread_are_turns_without_mentioning_the_bot(
    bot: BotHarness, slack: FakeSlack
) -> None:
    thread_ts = await bot.mention("checkout is slow", statement_reply())

    await bot.reply(thread_ts, "it started after the 14:00 deploy", chat_reply("Noted the deploy."))
    await bot.reply(thread_ts, "p99 is 4s", chat_reply("4 s p99 is far above normal."), user=SRE)

    texts = [text_of(m) for m in bot.bot_messages(thread_ts)]
    assert any("Noted the deploy." in t for t in texts)
    assert any("4 s p99 is far above normal." in t for t in texts)
    case = await bot.case(thread_ts)
    assert case.current_turn == 3
    assert SRE in case.participants
    assert len(bot.llm.requests) == 3
    assert not any("Looking at this" in t for t in texts)
    assert slack.invalid_payloads == []


async def test_while_the_model_thinks_the_thread_says_so_and_the_answer_is_one_new_message(
    bot: BotHarness, slack: FakeSlack
) -> None:
    thread_ts = await bot.mention("db-1 is down", statement_reply())
    bot.llm.script(delayed({"agent_response": "Slow answer.", "state_updates": {}}, 1.5))
    before = len(bot.bot_messages(thread_ts))

    asked = await bot.reply(thread_ts, "any idea?", settle=False)
    await eventually(lambda: len(bot.llm.requests) == 2)
    during = dict(slack.workspace.statuses)
    await bot.settle()
    after = bot.bot_messages(thread_ts)

    assert during == {(CHANNEL, thread_ts): "is looking at this…"}
    assert slack.workspace.statuses == {}, "the answer cleared the status line"
    assert len(after) == before + 1, "no placeholder: the answer is the one new message"
    assert "Slow answer." in text_of(after[-1])
    assert "reactions" not in (slack.message(CHANNEL, asked) or {})


async def test_where_status_lines_are_refused_a_reaction_shows_the_work_and_is_taken_off(
    bot: BotHarness, slack: FakeSlack
) -> None:
    thread_ts = await bot.mention("db-1 is down", statement_reply())
    slack.workspace.status_refused = "missing_scope"
    bot.llm.script(delayed({"agent_response": "Slow answer.", "state_updates": {}}, 1.5))

    asked = await bot.reply(thread_ts, "any idea?", settle=False)
    await eventually(lambda: len(bot.llm.requests) == 2)
    during = (slack.message(CHANNEL, asked) or {}).get("reactions")
    await bot.settle()

    assert during == [{"name": "eyes", "users": [slack.workspace.bot_user_id], "count": 1}]
    assert "reactions" not in (slack.message(CHANNEL, asked) or {})
    assert "Slow answer." in text_of(bot.bot_messages(thread_ts)[-1])


async def test_messages_arriving_during_a_turn_are_answered_together_in_the_next_one(
    bot: BotHarness,
) -> None:
    thread_ts = await bot.mention("db-1 is down", statement_reply())
    bot.llm.script(
        delayed({"agent_response": "First answer.", "state_updates": {}}, 1.5),
        chat_reply("Both later messages answered."),
    )
    await bot.reply(thread_ts, "first", settle=False)
    await eventually(lambda: len(bot.llm.requests) == 2)  # the first turn is with the model
    await bot.reply(thread_ts, "second", settle=False)
    await bot.reply(thread_ts, "third", settle=False)
    await eventually(lambda: len(bot.recorded) == 4)
    assert len(bot.llm.requests) == 2, "both arrived while the first turn was running"
    await bot.settle(expect=3)

    assert len(bot.llm.requests) == 3, "the two later messages made one turn, not two"
    last_prompt = str(bot.llm.requests[-1]["messages"])
    assert "second" in last_prompt
    assert "third" in last_prompt
    case = await bot.case(thread_ts)
    assert case.current_turn == 3


async def test_messages_from_bots_never_trigger_turns(bot: BotHarness, slack: FakeSlack) -> None:
    thread_ts = await bot.mention("db-1 is down", statement_reply())
    calls_before = len(bot.llm.requests)

    other_bot = slack.payloads.bot_message("I am another bot", thread_ts=thread_ts)
    ours = slack.payloads.bot_message("echo", bot_id="B0FMBOT", user="U0FMBOT", thread_ts=thread_ts)
    for request in (other_bot, ours):
        status_code, _ = await bot.send(request)
        assert status_code == 200
    await asyncio.sleep(0.3)
    await bot.settle(expect=0)

    assert len(bot.llm.requests) == calls_before
    assert bot.recorded[-1].kind == "open_case"


async def test_messages_in_threads_that_are_not_cases_are_ignored(
    bot: BotHarness, slack: FakeSlack
) -> None:
    parent = slack.add_message(CHANNEL, "lunch?", user=SRE)

    status_code, _ = await bot.send(
        slack.payloads.message("pizza", channel=CHANNEL, thread_ts=parent["ts"], user=OPENER)
    )
    await asyncio.sleep(0.3)

    assert status_code == 200
    assert bot.recorded == []
    assert slack.calls_to("chat.postMessage") == []


async def test_a_duplicate_delivery_of_an_event_is_answered_once(
    bot: BotHarness, slack: FakeSlack
) -> None:
    bot.llm.script(statement_reply())
    ts = next_ts()
    request = slack.payloads.message("<@U0FMBOT> db-1 is down", channel=CHANNEL, ts=ts)

    first, _ = await bot.send(request)
    await bot.settle()
    again, _ = await bot.send(request)  # Slack retries with the same event_id
    await asyncio.sleep(0.3)
    await bot.settle(expect=0)

    assert (first, again) == (200, 200)
    assert len(bot.llm.requests) == 1
    assert len(bot.bot_messages(ts)) == 1  # the summary, with the answer and its question


async def test_with_the_model_down_the_thread_gets_one_clear_sentence_and_the_next_turn_works(
    bot: BotHarness, slack: FakeSlack
) -> None:
    budget = ThreadBudget(bot)
    thread_ts = await budget.act("mention", bot.mention("db-1 is down", statement_reply()))

    await budget.act(
        "down", bot.reply(thread_ts, "any news?", status(500), status(500), status(500))
    )
    down = bot.bot_messages(thread_ts)[-1]
    await budget.act(
        "back", bot.reply(thread_ts, "and now?", chat_reply("Back online: here is my answer."))
    )

    assert "language model is unreachable" in text_of(down)
    assert "Traceback" not in text_of(down)
    assert "Back online: here is my answer." in text_of(bot.bot_messages(thread_ts)[-1])
    budget.check(thread_ts)


async def test_a_model_timeout_leaves_the_case_unchanged_and_says_so(
    bot: BotHarness, slack: FakeSlack
) -> None:
    budget = ThreadBudget(bot)
    thread_ts = await bot.mention("db-1 is down", statement_reply())
    before = await bot.case(thread_ts)

    late = delayed({"agent_response": "too late", "state_updates": {}}, MODEL_TIMEOUT_S + 1)
    await budget.act("timeout", bot.reply(thread_ts, "any news?", late))

    answer = text_of(bot.bot_messages(thread_ts)[-1])
    assert "did not answer in time" in answer
    assert "too late" not in answer
    after = await bot.case(thread_ts)
    assert after.current_turn == before.current_turn
    budget.check(thread_ts)


async def test_a_failure_on_our_side_shows_a_reference_and_no_exception_text(
    bot: BotHarness, slack: FakeSlack
) -> None:
    thread_ts = await bot.mention("db-1 is down", statement_reply())
    slack.fail_next("chat.postMessage", error="msg_too_long")

    await bot.reply(thread_ts, "hello?", chat_reply("You will not see this."))

    last = text_of(bot.bot_messages(thread_ts)[-1])
    assert "reference" in last
    assert "msg_too_long" not in last
    assert "SlackApiError" not in last


async def test_a_case_changed_during_a_turn_is_saved_with_both_changes_and_answered_once(
    bot: BotHarness, slack: FakeSlack
) -> None:
    thread_ts = await bot.mention("db-1 is down", statement_reply())
    answer = chat_reply("The replica lag explains it.", quick_suggestions=["check replica lag"])
    bot.llm.script(delayed(answer.content or "", 1.0))
    posts_before = len(slack.calls_to("chat.postMessage"))

    await bot.reply(thread_ts, "replica lag is 40 s", settle=False)
    await eventually(lambda: len(bot.llm.requests) == 2)
    meanwhile = await bot.case(thread_ts)
    meanwhile.title = "db-1 down: replica lag"
    await bot.runtime.repositories.cases.save(meanwhile)
    await bot.settle()

    assert len(bot.llm.requests) == 2, "the model was asked once for this turn"
    case = await bot.case(thread_ts)
    assert case.title == "db-1 down: replica lag", "the other change was kept"
    assert case.consulting.quick_suggestions == ["check replica lag"], "the reply was applied"
    texts = [text_of(m) for m in bot.bot_messages(thread_ts)]
    assert sum("The replica lag explains it." in t for t in texts) == 1
    posts = [str(c) for c in slack.calls_to("chat.postMessage")[posts_before:]]
    assert sum("replica lag explains" in post for post in posts) == 1, "one answer"
    edits = [c for c in slack.calls_to("chat.update") if "replica lag explains" in str(c)]
    assert edits == [], "the answer was shown once, never rewritten"


async def test_a_reply_saved_but_not_shown_before_a_restart_is_shown_without_asking_again(
    bot: BotHarness, slack: FakeSlack
) -> None:
    thread_ts = await bot.mention("db-1 is down", statement_reply())
    case = await bot.case(thread_ts)
    message = ThreadMessage(ts=next_ts(), author=OPENER, text="replica lag is 40 s")
    kept = build_reply(case, seen(case), ReplyParts(kind=ReplyKind.ANSWER, text="Kept answer."))
    services = bot.runtime.services
    # What a turn had done when the process died: saved, answer written down, not yet shown.
    await services.presenter.keep_reply(case, "Ev_crashed", kept)
    await bot.runtime.repositories.messages.add_many(
        [
            ConversationMessage(
                case_id=case.case_id,
                ts=message.ts,
                author=OPENER,
                role=MessageRole.USER,
                text=message.text,
                created_at=case.created_at,
            )
        ]
    )
    asked = len(bot.llm.requests)

    await services.turns.take_turn(
        thread=ThreadRef(team_id=case.team_id, channel_id=CHANNEL, thread_ts=thread_ts),
        messages=[message],
        work_key="Ev_crashed",
    )
    await services.turns.take_turn(
        thread=ThreadRef(team_id=case.team_id, channel_id=CHANNEL, thread_ts=thread_ts),
        messages=[message],
        work_key="Ev_crashed",
    )

    assert len(bot.llm.requests) == asked, "the model was not asked again"
    texts = [text_of(m) for m in bot.bot_messages(thread_ts)]
    assert sum("Kept answer." in t for t in texts) == 1, "shown once, even when run twice"


async def test_a_runaway_answer_is_a_model_fault_in_one_sentence_not_a_flood(
    bot: BotHarness, slack: FakeSlack
) -> None:
    budget = ThreadBudget(bot)
    thread_ts = await bot.mention("db-1 is down", statement_reply())
    before = len(bot.bot_messages(thread_ts))
    runaway = "The pool is exhausted, see line 42. " * 6000  # ~200 KB, repeating itself

    await budget.act(
        "runaway", bot.reply(thread_ts, "any news?", chat_reply(runaway), chat_reply(runaway))
    )

    after = bot.bot_messages(thread_ts)
    assert len(after) == before + 1, "one message, not the answer cut into dozens"
    assert len(text_of(after[-1])) < 1000
    assert "The pool is exhausted" not in text_of(after[-1])
    assert len(bot.llm.requests) == 3, "the answer was asked for again once, then given up"
    budget.check(thread_ts)
