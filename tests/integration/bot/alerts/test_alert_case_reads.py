"""An alert's case reads as a firing alert: since when it fires (the alert's own start), its
severity, who owns the next step, and the steps and the "did it work?" request shown once."""

from __future__ import annotations

from tests.alerts import crash_looping, resolved
from tests.integration.bot.alerts.alert_harness import (
    post_alert,
    thread_text,
    with_strategy_buttons,
)
from tests.integration.bot.alerts.remediation_harness import alert_case, decide, join
from tests.integration.bot.harness import SRE, BotHarness, text_of

STEP = "kubectl rollout restart deployment/payments-api -n payments"
ASKED = "Did “Restart a crash-looping deployment” work?"


def summary(bot: BotHarness, thread_ts: str) -> str:
    """The case's summary: the first message in the alert's thread."""
    (_, first, *_) = bot.bot_messages(thread_ts)
    return text_of(first)


async def test_the_summary_says_firing_since_the_alerts_start_its_severity_and_the_responders(
    bot: BotHarness,
) -> None:
    thread_ts = await alert_case(bot)

    shown = summary(bot, thread_ts)
    assert "🔥 Firing" in shown
    assert "Being described" not in shown
    assert "Firing since <!date^" in shown
    assert "2026-11-21 14:05 UTC" in shown, "the alert's own startsAt, not when it arrived"
    assert "Severity *warning*" in shown, "the alert's own severity label"
    assert "<@alertmanager>" not in shown
    assert "*Next:* The alert's responders to act on the analysis below" in shown
    (alert, *_) = bot.bot_messages(thread_ts)
    assert "started 2026-11-21 14:05Z" in text_of(alert)
    case = await bot.case(thread_ts)
    assert case.alert is not None
    assert case.alert.severity == "warning"


async def test_after_approval_the_approver_owns_next_and_steps_and_question_show_once(
    bot: BotHarness,
) -> None:
    thread_ts = await alert_case(bot)
    await join(bot, thread_ts)
    first, _ = with_strategy_buttons(bot, thread_ts)

    await decide(bot, first, "approve")

    shown = summary(bot, thread_ts)
    assert f"*Next:* <@{SRE}> to share: {ASKED}" in shown
    assert "<@alertmanager>" not in thread_text(bot, thread_ts)
    said = [text_of(m) for m in bot.bot_messages(thread_ts)]
    assert sum(STEP in text for text in said) == 1, "the steps once, where people act"
    assert sum("show me whether it worked" in text for text in said) == 0
    cards = [text for text in said if f"*📋 {ASKED}*" in text]
    assert len(cards) == 1, "the request once, as its card"


async def test_a_resolved_alert_no_longer_reads_as_firing(bot: BotHarness) -> None:
    thread_ts = await alert_case(bot)

    await post_alert(bot, resolved(crash_looping()))
    await bot.settle()

    shown = summary(bot, thread_ts)
    assert "🔥 Firing" not in shown
    assert "Started <!date^" in shown
    case = await bot.case(thread_ts)
    assert case.alert is not None
    assert case.alert.resolved_at is not None
