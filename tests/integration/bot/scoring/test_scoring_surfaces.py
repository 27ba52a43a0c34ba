"""Scoring beyond one request: lists, the App Home, long results, races and restarts."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import update

from bot.wiring.runtime import instance_name
from domain.llm import LLMPort
from domain.scoring.lifecycle import ORPHANED_REASON
from domain.scoring.model import ScoringStatus
from storage.schema.tables import InboxRow, ScoreRow
from tests.fakes.knowledge import FakeKnowledge
from tests.fakes.models.gateway import gateway_for
from tests.fakes.models.llm_server import FakeLLMServer, delayed, reply
from tests.fakes.slack.server import FakeSlack
from tests.integration.bot.harness import CHANNEL, OPENER, BotHarness, text_of
from tests.integration.bot.scoring.scoring_steps import (
    EVALUATION,
    MISSING_TOOLS,
    closed_case,
    fm,
    judge,
    latest_scoring,
    scoring_message,
    wait_for_update,
)

SENTENCE = "The investigation should have asked for the pool metrics before concluding anything."


async def scored(bot: BotHarness, text: str, total: int) -> str:
    """A closed case, scored ``total``; return its short id."""
    thread_ts = await closed_case(bot, text)
    case = await bot.case(thread_ts)
    bot.llm.script(*judge(EVALUATION.replace("\n58", f"\n{total}")))
    await fm(bot, f"score {case.short_id}", expect=2)
    return case.short_id


async def test_scores_lists_recent_scores_with_links_and_below_filters_them(
    bot: BotHarness,
) -> None:
    weak = await scored(bot, "db-1 is down", 42)
    good = await scored(bot, "cache evictions", 81)

    everything = text_of(await fm(bot, "scores"))
    below = text_of(await fm(bot, "scores --below 50"))
    wrong = text_of(await fm(bot, "scores --below lots"))

    assert "Recent scores (2)" in everything
    assert everything.index(good) < everything.index(weak), "newest first"
    assert "*81/100* 🟢 75 and above" in everything
    assert "slack.com/archives/C111" in everything
    assert weak in below
    assert good not in below
    assert "Recent scores below 50 (1)" in below
    assert "--below 50" in wrong


async def test_scores_without_any_says_so(bot: BotHarness) -> None:
    assert "none yet" in text_of(await fm(bot, "scores"))


async def test_the_app_home_shows_recent_scores(bot: BotHarness, slack: FakeSlack) -> None:
    label = await scored(bot, "db-1 is down", 66)
    opened = slack.payloads.event(
        "reaction_added", type="app_home_opened", user=OPENER, tab="home", item=None
    )

    await bot.send(opened)
    await bot.settle()

    home = slack.home(OPENER)
    assert home is not None
    shown = json.dumps(home["blocks"], ensure_ascii=False)
    assert label in shown
    assert "66/100" in shown
    assert slack.invalid_payloads == []


async def test_a_long_analysis_is_previewed_in_whole_sentences_and_shared_as_a_file(
    bot: BotHarness, slack: FakeSlack
) -> None:
    thread_ts = await closed_case(bot)
    case = await bot.case(thread_ts)
    long = "\n\n".join(f"{n}. {SENTENCE} " * 4 for n in range(40)) + "\nThe end of it.\n61"
    bot.llm.script(reply(long), reply(MISSING_TOOLS))

    await fm(bot, f"score {case.short_id}", expect=2)

    score = await latest_scoring(bot, thread_ts)
    shown = scoring_message(bot, score)
    assert slack.invalid_payloads == []
    assert "📎 The full analysis is in the file below." in text_of(shown)
    analysis = next(
        b["text"]["text"]
        for b in shown["blocks"]
        if b.get("text", {}).get("text", "").startswith("*Analysis*")
    )
    assert analysis.endswith("concluding anything.\n…")
    (upload,) = slack.calls_to("files.completeUploadExternal")
    assert upload["thread_ts"] == thread_ts
    content = slack.file_content(upload["files"][0]["id"])
    assert content is not None
    assert "The end of it." in content.decode()
    assert "Pool metrics" in content.decode()


async def test_forcing_while_a_scoring_runs_answers_that_it_is_already_running(
    bot: BotHarness,
) -> None:
    thread_ts = await closed_case(bot)
    case = await bot.case(thread_ts)
    bot.llm.script(delayed(EVALUATION, 1.0), reply(MISSING_TOOLS))
    answered = len(bot.slack.responses)

    await bot.send(bot.slack.payloads.slash_command(f"score {case.short_id}", user_id=OPENER))
    await bot.slack.wait_for("response_url", answered + 1)
    running = await latest_scoring(bot, thread_ts)
    await wait_for_update(bot, running.message_ts or "", "Evaluating the investigation")
    await bot.send(
        bot.slack.payloads.slash_command(f"score {case.short_id} --force", user_id=OPENER)
    )
    await bot.settle(expect=3)
    await bot.slack.wait_for("response_url", answered + 2)

    forced = json.dumps(bot.slack.responses[answered + 1], ensure_ascii=False)
    assert "already running, so a new one can't be forced yet" in forced
    done = await latest_scoring(bot, thread_ts)
    assert (done.score_id, done.status) == (running.score_id, ScoringStatus.COMPLETED)


async def test_a_scoring_left_running_by_a_crash_is_failed_at_start_up_and_says_so(
    slack: FakeSlack, llm: FakeLLMServer, knowledge: FakeKnowledge, tmp_path: Path
) -> None:
    first = await BotHarness.start(slack, llm, tmp_path, knowledge=knowledge)
    try:
        thread_ts = await closed_case(first)
        case = await first.case(thread_ts)
        llm.script(*judge())
        await fm(first, f"score {case.short_id}", expect=2)
        score = await latest_scoring(first, thread_ts)
        # What a hard crash mid-judge leaves behind: the scoring running, its work claimed.
        async with first.runtime.database.begin() as connection:
            await connection.execute(
                update(ScoreRow)
                .where(ScoreRow.score_id == score.score_id)
                .values(status="in_progress", total_score=None, completed_at_us=None)
            )
            await connection.execute(
                update(InboxRow)
                .where(InboxRow.dedup_key == f"score:{score.score_id}")
                .values(
                    status="processing",
                    locked_at=datetime.now(UTC) - timedelta(seconds=5),
                    locked_by=instance_name(first.runtime.settings),
                )
            )
    finally:
        await first.stop()
    asked = len(llm.requests)

    second = await BotHarness.start(slack, llm, tmp_path, knowledge=knowledge)
    try:
        await second.settle(expect=0)
        after = await latest_scoring(second, thread_ts)
    finally:
        await second.stop()

    assert (after.status, after.error_message) == (ScoringStatus.FAILED, ORPHANED_REASON)
    shown = text_of(scoring_message(second, after))
    assert f"Scoring {case.short_id} failed" in shown
    assert ORPHANED_REASON in shown
    assert len(llm.requests) == asked, "the judge is not asked again"
    assert CHANNEL in (after.message_channel or "")


class JudgeThatBreaks:
    """The model answers turns, but the judge's calls fail in a way nobody planned for."""

    def __init__(self, gateway: LLMPort) -> None:
        self._gateway = gateway
        self.enabled = True

    async def structured(self, **call: Any) -> Any:
        return await self._gateway.structured(**call)

    async def text(self, **call: Any) -> str:
        raise RuntimeError("boom: password=hunter2")


async def test_an_unexpected_failure_of_the_judges_work_fails_the_scoring_with_a_reference(
    slack: FakeSlack, llm: FakeLLMServer, tmp_path: Path
) -> None:
    judge = JudgeThatBreaks(gateway_for(llm).gateway)
    bot = await BotHarness.start(slack, llm, tmp_path, knowledge=FakeKnowledge(), llm=judge)
    try:
        thread_ts = await closed_case(bot)
        case = await bot.case(thread_ts)
        await fm(bot, f"score {case.short_id}", expect=2)
        failed = await latest_scoring(bot, thread_ts)
        shown = text_of(scoring_message(bot, failed))
    finally:
        await bot.stop()

    assert failed.status is ScoringStatus.FAILED
    assert (failed.error_message or "").startswith("Something went wrong on my side (reference `")
    assert "Something went wrong on my side" in shown
    assert "hunter2" not in shown


async def test_without_a_model_scoring_is_refused_with_what_to_configure(
    slack: FakeSlack, llm: FakeLLMServer, knowledge: FakeKnowledge, tmp_path: Path
) -> None:
    no_model = gateway_for(llm, model=None).gateway
    bot = await BotHarness.start(slack, llm, tmp_path, knowledge=knowledge, llm=no_model)
    try:
        thread_ts = await closed_case(bot)
        case = await bot.case(thread_ts)
        answer = await fm(bot, f"score {case.short_id}")
        counts = await bot.runtime.repositories.scores.count_by_status(case.case_id)
    finally:
        await bot.stop()

    assert "FM_LLM_MODEL" in text_of(answer)
    assert sum(counts.values()) == 0


async def test_a_thread_that_refuses_the_scoring_message_fails_the_scoring_at_once(
    bot: BotHarness, slack: FakeSlack
) -> None:
    thread_ts = await closed_case(bot)
    case = await bot.case(thread_ts)
    slack.fail_next("chat.postMessage", error="is_archived")

    answer = await fm(bot, f"score {case.short_id}")

    assert "couldn't post the scoring into the case thread" in text_of(answer)
    failed = await latest_scoring(bot, thread_ts)
    assert failed.status is ScoringStatus.FAILED
    assert await bot.runtime.repositories.scores.active_for_case(case.case_id) is None


async def test_a_slack_hiccup_while_showing_progress_does_not_stop_the_scoring(
    bot: BotHarness, slack: FakeSlack
) -> None:
    thread_ts = await closed_case(bot)
    case = await bot.case(thread_ts)
    bot.llm.script(*judge())
    slack.fail_next("chat.update", error="ratelimited", status=429, retry_after=0, times=4)

    await fm(bot, f"score {case.short_id}", expect=2)

    done = await latest_scoring(bot, thread_ts)
    assert done.status is ScoringStatus.COMPLETED
    assert f"{case.short_id} scored 58/100" in text_of(scoring_message(bot, done))
