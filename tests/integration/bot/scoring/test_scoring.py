"""`/fm score`, the Score button and the shortcut, end to end: fake Slack, fake judge model."""

from __future__ import annotations

import json

from domain.scoring.judge import current_criteria
from domain.scoring.model import Category, ScoringStatus
from tests.fakes.models.llm_server import status
from tests.fakes.slack.server import FakeSlack
from tests.integration.bot.harness import CHANNEL, OPENER, SRE, BotHarness, text_of
from tests.integration.bot.replies import statement_reply
from tests.integration.bot.scoring.scoring_steps import (
    EVALUATION,
    closed_case,
    fm,
    judge,
    latest_scoring,
    scoring_message,
    updates_of,
)


async def test_score_grades_a_closed_case_in_one_message_updated_through_its_phases(
    bot: BotHarness, slack: FakeSlack
) -> None:
    thread_ts = await closed_case(bot)
    case = await bot.case(thread_ts)
    bot.llm.script(*judge())

    answer = await fm(bot, f"score {case.short_id}", expect=2)

    assert f"Scoring `{case.short_id}` now" in text_of(answer)
    assert "slack.com/archives/C111" in text_of(answer)
    score = await latest_scoring(bot, thread_ts)
    assert score.status is ScoringStatus.COMPLETED
    assert (score.total_score, score.prompt_hash) == (58, current_criteria().hash)
    assert score.category_scores()[Category.TOOL_RELEVANCE] == 11
    assert score.score_triggered_by == OPENER
    phases = [text_of(u) for u in updates_of(bot, score.message_ts or "")]
    assert "⏳ Evaluating the investigation…" in phases[0]
    assert "✅ Evaluating the investigation" in phases[1]
    assert "⏳ Identifying missing evidence and tools…" in phases[1]
    shown = text_of(scoring_message(bot, score))
    for expected in (
        f"{case.short_id} scored 58/100 · 🟡 50–74",
        "*Logical flow:* 14/25",
        "Evidence requests: 0 made · 0 answered · 0 blocked",
        "Actions proposed: 0 · State-changing commands shown: 0 · "
        "Destructive commands suggested: ✅ 0",
        "Root cause: ⚠️ none stated",
        "without ever asking for the",
        "*Pool metrics*",
        f"Asked by <@{OPENER}>",
        "✅ current scoring criteria",
    ):
        assert expected in shown, expected
    assert slack.invalid_payloads == []


async def test_the_judge_sees_the_case_transcript_in_two_turns_of_one_conversation(
    bot: BotHarness,
) -> None:
    thread_ts = await closed_case(bot, "payments API returns 500s since 14:05")
    case = await bot.case(thread_ts)
    bot.llm.script(*judge())

    await fm(bot, f"score {case.short_id}", expect=2)

    first, second = bot.llm.requests[-2:]
    assert [m["role"] for m in first["messages"]] == ["system", "user"]
    prompt = first["messages"][1]["content"]
    assert "payments API returns 500s since 14:05" in prompt
    assert "Status consulting → closed" in prompt
    assert prompt.rstrip().endswith("as a whole number from 0 to 100.")
    assert [m["role"] for m in second["messages"]] == ["system", "user", "assistant", "user"]
    assert second["messages"][2]["content"] == EVALUATION


async def test_an_open_case_is_refused_with_the_reason_and_nothing_is_scored(
    bot: BotHarness,
) -> None:
    thread_ts = await bot.mention("db-1 is down", statement_reply())
    case = await bot.case(thread_ts)
    calls = len(bot.llm.requests)

    answer = await fm(bot, f"score {case.short_id}")

    assert "only resolved or closed cases can be scored" in text_of(answer)
    assert "Being described" in text_of(answer)
    assert len(bot.llm.requests) == calls
    counts = await bot.runtime.repositories.scores.count_by_status(case.case_id)
    assert sum(counts.values()) == 0


async def test_score_needs_a_case_it_can_find(bot: BotHarness) -> None:
    which = await fm(bot, "score")
    missing = await fm(bot, "score FM-NOPE")
    flags = await fm(bot, "score FM-NOPE --now")

    assert "Which case?" in text_of(which)
    assert "can't find case `FM-NOPE`" in text_of(missing)
    assert "--force" in text_of(flags)


async def test_the_header_button_scores_and_a_second_click_shows_the_existing_score(
    bot: BotHarness, slack: FakeSlack
) -> None:
    thread_ts = await closed_case(bot)
    header = bot.bot_messages(thread_ts)[0]
    bot.llm.script(*judge())

    await bot.click(header, action_prefix="fm_score", user=SRE)
    await bot.click(header, action_prefix="fm_score", user=SRE)

    first, second = slack.ephemerals(user=SRE)
    assert "now; follow it" in first["text"]
    assert "was scored *58/100* (🟡 50–74)" in second["text"]
    assert "--force" in second["text"]
    score = await latest_scoring(bot, thread_ts)
    assert score.score_triggered_by == SRE
    assert len(bot.llm.requests) == 3, "the opening turn, then the two turns of one scoring"


async def test_the_shortcut_on_a_thread_message_scores_that_case(
    bot: BotHarness, slack: FakeSlack
) -> None:
    thread_ts = await closed_case(bot)
    in_thread = bot.thread(thread_ts)[-1]
    bot.llm.script(*judge())

    status_code, _ = await bot.send(
        slack.payloads.message_shortcut("fm_score_investigation", message=in_thread, user=SRE)
    )
    await bot.settle(expect=2)

    assert status_code == 200
    assert "now; follow it" in slack.responses[-1]["text"]
    assert (await latest_scoring(bot, thread_ts)).status is ScoringStatus.COMPLETED


async def test_the_shortcut_outside_a_case_says_there_is_nothing_to_score(
    bot: BotHarness, slack: FakeSlack
) -> None:
    other = slack.add_message(CHANNEL, "lunch?", user=SRE)

    await bot.send(slack.payloads.message_shortcut("fm_score_investigation", message=other))
    await bot.settle()

    assert "isn't a FaultMaven case" in slack.responses[-1]["text"]


async def test_force_scores_again_and_every_score_is_kept(bot: BotHarness) -> None:
    thread_ts = await closed_case(bot)
    case = await bot.case(thread_ts)
    bot.llm.script(*judge())
    await fm(bot, f"score {case.short_id}", expect=2)
    first = await latest_scoring(bot, thread_ts)

    again = await fm(bot, f"score {case.short_id}")
    bot.llm.script(*judge(EVALUATION.replace("\n58", "\n77")))
    forced = await fm(bot, f"score {case.short_id} --force", expect=2)

    assert "was scored *58/100*" in text_of(again)
    assert "now; follow it" in text_of(forced)
    second = await latest_scoring(bot, thread_ts)
    assert second.score_id != first.score_id
    assert second.total_score == 77
    assert second.message_ts != first.message_ts
    counts = await bot.runtime.repositories.scores.count_by_status(case.case_id)
    assert counts[ScoringStatus.COMPLETED] == 2


async def test_a_judge_that_keeps_failing_fails_the_scoring_with_its_reason_shown(
    bot: BotHarness, slack: FakeSlack
) -> None:
    thread_ts = await closed_case(bot)
    case = await bot.case(thread_ts)
    # Each judge turn's three attempts each get the gateway's own three tries of a 503.
    bot.llm.script(*[status(503)] * 9)

    await fm(bot, f"score {case.short_id}", expect=2)

    score = await latest_scoring(bot, thread_ts)
    assert score.status is ScoringStatus.FAILED
    shown = text_of(scoring_message(bot, score))
    assert "❌ The judge model could not be reached (3 attempts" in shown
    assert f"/fm score {case.short_id} --force" in shown
    assert "scripted" not in shown
    assert "ServiceUnavailable" not in shown
    assert bot.judge_waits.waits == [2.0, 4.0]
    retried = await fm(bot, f"score {case.short_id}")
    assert "failed: The judge model could not be reached" in text_of(retried)


async def test_two_score_commands_at_once_make_one_scoring(bot: BotHarness) -> None:
    thread_ts = await closed_case(bot)
    case = await bot.case(thread_ts)
    bot.llm.script(*judge())
    answered = len(bot.slack.responses)

    for _ in range(2):
        await bot.send(bot.slack.payloads.slash_command(f"score {case.short_id}", user_id=OPENER))
    await bot.settle(expect=3)
    await bot.slack.wait_for("response_url", answered + 2)

    answers = sorted(json.dumps(r) for r in bot.slack.responses[answered:])
    assert sum("now; follow it" in a for a in answers) == 1
    counts = await bot.runtime.repositories.scores.count_by_status(case.case_id)
    assert sum(counts.values()) == 1
