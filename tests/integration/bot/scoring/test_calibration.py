"""Calibration from real use: 👍/👎 under root causes, outcomes on resolution, `/fm calibration`."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from domain.lifecycle.status import CaseStatus
from domain.outcomes import Rating, Verdict
from tests.fakes.knowledge import FakeKnowledge
from tests.fakes.models.llm_server import FakeLLMServer
from tests.fakes.slack.server import FakeSlack
from tests.integration.bot.harness import (
    CHANNEL,
    MODEL_TIMEOUT_S,
    OPENER,
    SRE,
    BotHarness,
    text_of,
    with_buttons,
)
from tests.integration.bot.replies import statement_reply
from tests.integration.bot.scoring.scoring_steps import fm
from tests.integration.engine.thread import json_reply

JsonDict = dict[str, Any]
ROOT_CAUSE = "Connection pool exhausted by leaked connections in the checkout worker"
MECHANISM = "requests queue for the 10 pooled connections and time out after 30 s"
NAMES_IT = "Fixed the connection leak in the checkout worker"
NAMES_ANOTHER = "Rolled back the DNS change"


@pytest.fixture
async def bot(
    slack: FakeSlack, llm: FakeLLMServer, knowledge: FakeKnowledge, tmp_path: Path
) -> AsyncIterator[BotHarness]:
    """The bot with the gateway the composition root builds, so its calls are in the database."""
    env = {
        "FM_LLM_API_BASE": llm.api_base,
        "FM_LLM_API_KEY": "sk-test-not-a-real-key",
        "FM_LLM_TIMEOUT_S": str(MODEL_TIMEOUT_S),
    }
    harness = await BotHarness.start(slack, llm, tmp_path, knowledge=knowledge, env=env, llm=None)
    try:
        yield harness
    finally:
        await harness.stop()


def root_cause_reply(confidence: float) -> object:
    return json_reply(
        "The pool runs dry: every 502 waited 30 s for a connection.",
        milestones={"root_cause_identified": True},
        root_cause_conclusion={
            "root_cause": ROOT_CAUSE,
            "confidence_score": confidence,
            "mechanism": MECHANISM,
        },
    )


def resolve_reply(summary: str) -> object:
    return json_reply(
        "Glad it is fixed.",
        status_change_request={
            "to_status": "resolved",
            "reason": "the 502s stopped",
            "resolution_summary": summary,
        },
    )


async def investigate(bot: BotHarness, confidence: float) -> str:
    """Open a case, start investigating, and have the model state the root cause."""
    thread_ts = await bot.mention("checkout-api returns 502", statement_reply())
    (question,) = with_buttons(bot.bot_messages(thread_ts), "fm_answer")
    await bot.click(question, decision="yes")
    await bot.reply(thread_ts, "HikariPool timeouts since 14:05", root_cause_reply(confidence))
    assert bot.llm.queue == []
    return thread_ts


async def resolve(bot: BotHarness, thread_ts: str, summary: str) -> None:
    """A person says it is fixed and confirms the resolution."""
    await bot.reply(thread_ts, "it's fixed, mark it resolved", resolve_reply(summary))
    question = with_buttons(bot.bot_messages(thread_ts), "fm_answer")[-1]
    await bot.click(question, decision="yes")
    assert (await bot.case(thread_ts)).status is CaseStatus.RESOLVED
    assert bot.llm.queue == []


def feedback_element(bot: BotHarness, thread_ts: str) -> tuple[JsonDict, JsonDict]:
    """The newest message with 👍/👎 under a root cause, and its feedback buttons element."""
    for message in reversed(bot.bot_messages(thread_ts)):
        for block in message.get("blocks", []):
            if block["type"] == "context_actions":
                (element,) = block["elements"]
                return message, element
    raise AssertionError("no feedback buttons in the thread")


async def rate(bot: BotHarness, thread_ts: str, rating: Rating, *, user: str = OPENER) -> None:
    """Click 👍 or 👎 as Slack sends a feedback_buttons action."""
    message, element = feedback_element(bot, thread_ts)
    button = element["positive_button" if rating is Rating.UP else "negative_button"]
    request = bot.slack.payloads.block_action(
        element["action_id"],
        button["value"],
        message=message,
        channel=CHANNEL,
        user=user,
        action={"type": "feedback_buttons", "text": button["text"]},
    )
    status, _ = await bot.send(request)
    assert status == 200
    await bot.settle()


async def outcome_of(bot: BotHarness, thread_ts: str) -> tuple[Verdict, float | None, str | None]:
    case = await bot.case(thread_ts)
    found = await bot.runtime.repositories.outcomes.get(case.case_id)
    assert found is not None
    return found.verdict, found.confidence, found.model


async def test_a_stated_root_cause_carries_feedback_buttons_and_a_rating_is_thanked_privately(
    bot: BotHarness, slack: FakeSlack
) -> None:
    thread_ts = await investigate(bot, 0.8)
    _, element = feedback_element(bot, thread_ts)
    assert element["type"] == "feedback_buttons"

    await rate(bot, thread_ts, Rating.UP)
    await rate(bot, thread_ts, Rating.DOWN, user=SRE)
    await rate(bot, thread_ts, Rating.DOWN)

    case = await bot.case(thread_ts)
    kept = await bot.runtime.repositories.feedback.list_for_case(case.case_id)
    assert sorted((f.user_id, f.rating, f.confidence, f.model) for f in kept) == [
        (OPENER, Rating.DOWN, 0.8, "openai/test-model"),
        (SRE, Rating.DOWN, 0.8, "openai/test-model"),
    ]
    assert [text_of(w).splitlines()[0] for w in slack.ephemerals(user=OPENER)] == [
        "Thanks — noted."
    ] * 2
    assert slack.invalid_payloads == []


async def test_calibration_counts_confirmed_and_refuted_root_causes_per_confidence(
    bot: BotHarness, slack: FakeSlack
) -> None:
    confirmed = await investigate(bot, 0.9)
    await rate(bot, confirmed, Rating.UP)
    await resolve(bot, confirmed, NAMES_IT)

    refuted = await investigate(bot, 0.85)
    await rate(bot, refuted, Rating.DOWN, user=SRE)
    await resolve(bot, refuted, NAMES_IT)

    other_cause = await investigate(bot, 0.3)
    await resolve(bot, other_cause, NAMES_ANOTHER)

    named = await investigate(bot, 0.55)
    await resolve(bot, named, NAMES_IT)

    rated_late = await investigate(bot, 0.7)
    await resolve(bot, rated_late, NAMES_IT)
    assert (await outcome_of(bot, rated_late))[0] is Verdict.RIGHT
    await rate(bot, rated_late, Rating.DOWN)
    assert (await outcome_of(bot, rated_late))[0] is Verdict.WRONG
    await rate(bot, rated_late, Rating.UP)

    abandoned = await investigate(bot, 0.6)
    case = await bot.case(abandoned)
    await fm(bot, f"close {case.short_id}")
    question = with_buttons(bot.bot_messages(abandoned), "fm_answer")[-1]
    await bot.click(question, decision="yes")
    assert (await bot.case(abandoned)).status is CaseStatus.CLOSED

    assert [await outcome_of(bot, t) for t in (confirmed, refuted, other_cause, named)] == [
        (Verdict.RIGHT, 0.9, "openai/test-model"),
        (Verdict.WRONG, 0.85, "openai/test-model"),
        (Verdict.WRONG, 0.3, "openai/test-model"),
        (Verdict.RIGHT, 0.55, "openai/test-model"),
    ]
    assert (await outcome_of(bot, rated_late))[0] is Verdict.RIGHT
    assert (await outcome_of(bot, abandoned))[0] is Verdict.NO_OUTCOME

    answer = text_of(await fm(bot, "calibration"))
    assert "The last 6 outcomes* (of up to 100): ✅ 3 right · ❌ 2 wrong" in answer
    assert "❔ 0 unknown · ➖ 1 no outcome" in answer
    assert "• 0%–20%: none" in answer
    assert "• 20%–40%: 1 · 0 right (0%), stated 30% on average" in answer
    assert "• 40%–60%: 1 · 1 right (100%), stated 55% on average" in answer
    assert "• 60%–80%: 1 · 1 right (100%), stated 70% on average" in answer
    assert "• 80%–100%: 2 · 1 right (50%), stated 88% on average" in answer
    assert "`openai/test-model`: 5 graded · 3 right (60%)" in answer
    assert "Too few to mean anything yet: 5 graded outcome(s)" in answer
    assert "Brier" in answer
    assert "*Brier* " not in answer

    last_two = text_of(await fm(bot, "calibration --last 2"))
    assert "The last 2 outcomes* (of up to 2): ✅ 1 right · ❌ 0 wrong" in last_two
    assert "➖ 1 no outcome" in last_two

    usage = text_of(await fm(bot, "calibration --last lots"))
    assert "Try `/fm calibration`" in usage
    assert slack.invalid_payloads == []


async def test_the_app_home_shows_the_calibration_summary(
    bot: BotHarness, slack: FakeSlack
) -> None:
    thread_ts = await investigate(bot, 0.9)
    await rate(bot, thread_ts, Rating.UP)
    await resolve(bot, thread_ts, NAMES_ANOTHER)
    opened = slack.payloads.event(
        "reaction_added",
        type="app_home_opened",
        user=OPENER,
        channel="D0FMHOME",
        tab="home",
        item=None,
        reaction=None,
        item_user=None,
    )

    status, _ = await bot.send(opened)
    await bot.settle()

    assert status == 200
    home = slack.home(OPENER)
    assert home is not None
    shown = json.dumps(home["blocks"], ensure_ascii=False)
    assert "Calibration" in shown
    assert "The last 1 outcomes* (of up to 100): ✅ 1 right" in shown
    assert "• 80%–100%: 1 · 1 right (100%)" in shown
    assert slack.invalid_payloads == []
