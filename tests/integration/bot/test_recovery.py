"""Crashes, restarts, shutdowns: unfinished work resumes once; fifty cases at once all answered."""

from __future__ import annotations

import asyncio
import uuid
from dataclasses import replace
from datetime import timedelta
from pathlib import Path

from sqlalchemy import select

from bot.inbox.work import ScoreRunWork, to_item
from domain.base import utc_now
from domain.queue import InboxStatus
from domain.scoring.model import ScoringStatus, SessionScore
from storage.schema.tables import InboxRow
from tests.fakes.knowledge import FakeKnowledge
from tests.fakes.models.llm_server import FakeLLMServer, delayed
from tests.fakes.slack.samples import next_ts
from tests.fakes.slack.server import FakeSlack
from tests.integration.bot.harness import CHANNEL, MENTION, BotHarness, eventually, text_of
from tests.integration.bot.replies import chat_reply, statement_reply
from tests.integration.storage.builders import new_case


async def crash(harness: BotHarness) -> None:
    """The process dies mid-turn: nothing is finished or released."""
    await harness.runtime.worker.abort()
    await harness.session.close()
    await harness.server.close()
    await harness.runtime.database.dispose()
    if harness.runtime.http is not None:  # a dead process leaves no socket open either
        await harness.runtime.http.close()


async def wait_until_working(harness: BotHarness, thread_ts: str) -> None:
    """Until the thread's status line says the bot is working on it."""
    statuses = harness.slack.workspace.statuses
    await eventually(lambda: any(ts == thread_ts for _, ts in statuses))


async def test_a_turn_cut_by_a_crash_completes_once_after_the_restart(
    slack: FakeSlack, llm: FakeLLMServer, knowledge: FakeKnowledge, tmp_path: Path
) -> None:
    first = await BotHarness.start(slack, llm, tmp_path, knowledge=knowledge)
    thread_ts = await first.mention("db-1 is down", statement_reply())
    await first.reply(
        thread_ts,
        "any news?",
        delayed({"agent_response": "lost", "state_updates": {}}, 2),
        settle=False,
    )
    await wait_until_working(first, thread_ts)
    await eventually(lambda: len(llm.requests) == 2)  # the model is on the second turn
    await crash(first)

    llm.script(chat_reply("Answer after the restart."))
    second = await BotHarness.start(slack, llm, tmp_path, knowledge=knowledge)
    try:
        await second.settle(expect=0)
        case = await second.case(thread_ts)
        statuses = await inbox_statuses(second)
    finally:
        await second.stop()

    texts = [text_of(m) for m in second.bot_messages(thread_ts)]
    assert len(texts) == 2, "the summary with the first answer and its question, and one reply"
    assert "Answer after the restart." in texts[-1]
    assert not any("Looking at this" in t for t in texts)
    assert case.current_turn == 2
    assert statuses == [InboxStatus.DONE.value] * 2


async def inbox_statuses(harness: BotHarness) -> list[str]:
    async with harness.runtime.database.connect() as connection:
        rows = await connection.execute(select(InboxRow.status).order_by(InboxRow.item_id))
        return [row[0] for row in rows]


async def test_shutdown_lets_a_running_turn_finish_within_the_grace_period(
    slack: FakeSlack, llm: FakeLLMServer, knowledge: FakeKnowledge, tmp_path: Path
) -> None:
    harness = await BotHarness.start(slack, llm, tmp_path, knowledge=knowledge)
    thread_ts = await harness.mention("db-1 is down", statement_reply())
    await harness.reply(
        thread_ts,
        "any news?",
        delayed({"agent_response": "Finished before shutdown.", "state_updates": {}}, 1),
        settle=False,
    )
    await wait_until_working(harness, thread_ts)

    await harness.stop()

    texts = [text_of(m) for m in harness.bot_messages(thread_ts)]
    assert any("Finished before shutdown." in t for t in texts)
    assert not any("Looking at this" in t for t in texts)


async def test_a_replica_starting_on_the_same_database_leaves_a_running_turn_alone(
    slack: FakeSlack, llm: FakeLLMServer, knowledge: FakeKnowledge, tmp_path: Path
) -> None:
    shared = {"FM_DATABASE_URL": f"sqlite+aiosqlite:///{tmp_path / 'shared.db'}"}
    first = await BotHarness.start(slack, llm, tmp_path / "a", knowledge=knowledge, env=shared)
    second: BotHarness | None = None
    try:
        thread_ts = await first.mention("db-1 is down", statement_reply())
        await first.reply(
            thread_ts,
            "any news?",
            replace(chat_reply("Answered once."), delay_s=1.5),
            settle=False,
        )
        await eventually(lambda: len(llm.requests) == 2)  # the model is on the second turn
        second = await BotHarness.start(slack, llm, tmp_path / "b", knowledge=knowledge, env=shared)
        await first.settle(expect=0)
        await asyncio.sleep(0.5)  # the replica's worker has had its rounds
        statuses = await inbox_statuses(second)
    finally:
        await first.stop()
        if second is not None:
            await second.stop()

    texts = [text_of(m) for m in first.bot_messages(thread_ts)]
    assert sum("Answered once." in t for t in texts) == 1
    assert len(llm.requests) == 2, "the replica did not take the turn again"
    assert statuses == [InboxStatus.DONE.value] * 2


async def test_a_scoring_a_live_replica_is_running_survives_another_ones_start(
    slack: FakeSlack, llm: FakeLLMServer, knowledge: FakeKnowledge, tmp_path: Path
) -> None:
    shared = {"FM_DATABASE_URL": f"sqlite+aiosqlite:///{tmp_path / 'shared.db'}"}
    first = await BotHarness.start(slack, llm, tmp_path / "a", knowledge=knowledge, env=shared)
    repos = first.runtime.repositories
    judged, stuck = [
        await repos.scores.create(_scoring((await repos.cases.add(new_case(thread_ts=ts))).case_id))
        for ts in ("1.1", "1.2")
    ]
    # The replica judging `judged` right now: its run item is held and its heartbeat is recent.
    run = ScoreRunWork(team_id="T1", score_id=judged.score_id)
    soon = utc_now() + timedelta(minutes=1)
    await repos.inbox.enqueue(
        to_item(run, dedup_key="run-1", team_id="T1", case_key=None, available_at=soon)
    )
    assert await repos.inbox.claim(now=soon, owner="other-host:/data")
    await first.stop()

    second = await BotHarness.start(slack, llm, tmp_path / "b", knowledge=knowledge, env=shared)
    try:
        scores = second.runtime.repositories.scores
        assert (await scores.get(judged.score_id)).status is ScoringStatus.PENDING
        assert (await scores.get(stuck.score_id)).status is ScoringStatus.FAILED
    finally:
        await second.stop()


def _scoring(case_id: str) -> SessionScore:
    return SessionScore(
        score_id=str(uuid.uuid4()),
        case_id=case_id,
        prompt_hash="0" * 64,
        score_triggered_by="U_OPENER",
        scored_at_us=1,
        started_at_us=1,
    )


async def test_fifty_cases_opened_at_once_are_all_answered(
    bot: BotHarness, slack: FakeSlack
) -> None:
    bot.llm.script(*(statement_reply() for _ in range(50)))
    threads = [next_ts() for _ in range(50)]
    requests = [
        slack.payloads.message(f"{MENTION} service {n} is down", channel=CHANNEL, ts=ts)
        for n, ts in enumerate(threads)
    ]

    statuses = await asyncio.gather(*(bot.send(r) for r in requests))
    await bot.settle(expect=50, seconds=120)

    assert {status for status, _ in statuses} == {200}
    for ts in threads:
        messages = [text_of(m) for m in bot.bot_messages(ts)]
        assert len(messages) == 1, messages  # the summary, the answer and its question
        assert not any("Looking at this" in t for t in messages)
    assert len(bot.llm.requests) == 50
    assert slack.invalid_payloads == []
