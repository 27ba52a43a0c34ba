"""Budget rules: which limit a spend reached, and how it is said."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

from domain.budget import BudgetLimits, BudgetScope, LLMSpend, breached, day_of, money

NOON = datetime(2026, 11, 21, 12, 0, tzinfo=UTC)


def test_the_day_is_the_utc_day_whatever_the_clock_s_zone() -> None:
    tokyo = datetime(2026, 11, 22, 8, 0, tzinfo=timezone(timedelta(hours=9)))

    assert day_of(tokyo) == (
        datetime(2026, 11, 21, tzinfo=UTC),
        datetime(2026, 11, 22, tzinfo=UTC),
    )


def test_the_day_s_budget_wins_over_the_case_s_cap() -> None:
    limits = BudgetLimits(day_usd=5, case_usd=1)
    spend = LLMSpend(calls=9, tokens=9000, cost_usd=6.0)

    breach = breached(limits, case=spend, day=spend, now=NOON)

    assert breach is not None
    assert breach.scope is BudgetScope.DAY
    assert breach.resets_at == datetime(2026, 11, 22, tzinfo=UTC)
    assert breach.sentence() == (
        "Today's model budget of $5.00 is used up ($6.00 spent), so this is a plain answer"
        " without the model until 00:00 UTC; files, the knowledge base and the buttons still work."
    )


def test_a_case_under_every_limit_passes() -> None:
    limits = BudgetLimits(day_usd=5, day_tokens=10_000, case_usd=1, case_tokens=5000)
    spend = LLMSpend(calls=3, tokens=4999, cost_usd=0.99)

    assert breached(limits, case=spend, day=spend, now=NOON) is None


def test_an_unknown_price_never_breaks_a_money_budget_but_tokens_still_count() -> None:
    unpriced = LLMSpend(calls=40, tokens=900_000, cost_usd=None, unpriced_calls=40)

    assert breached(BudgetLimits(day_usd=0.01), case=None, day=unpriced, now=NOON) is None
    breach = breached(BudgetLimits(case_tokens=800_000), case=unpriced, day=LLMSpend(), now=NOON)
    assert breach is not None
    assert (breach.limit, breach.spent) == ("800.0k tokens", "900.0k used")


def test_spend_reads_short_and_in_a_sentence() -> None:
    spend = LLMSpend(calls=3, tokens=4200, cost_usd=0.0123)

    assert spend.short() == "3 model calls · 4.2k tokens · $0.0123"
    assert spend.sentence() == "3 model calls · 4.2k tokens · $0.0123."
    assert LLMSpend().sentence() == "No model calls."
    local = LLMSpend(calls=1, tokens=950, unpriced_calls=1)
    assert local.sentence() == "1 model call · 950 tokens; no price is known for the model."
    mixed = LLMSpend(calls=2, tokens=2000, cost_usd=0.5, unpriced_calls=1)
    assert mixed.sentence().endswith("not counting 1 call of a model without a price.")


def test_money_keeps_enough_digits() -> None:
    assert [money(v) for v in (0, 0.0004, 0.0123, 1.5, 1234.5)] == [
        "$0",
        "<$0.001",
        "$0.0123",
        "$1.50",
        "$1,234",
    ]


def test_the_channel_hears_which_case_reached_its_cap() -> None:
    breach = breached(
        BudgetLimits(case_usd=2),
        case=LLMSpend(calls=5, cost_usd=2.5),
        day=LLMSpend(),
        now=NOON,
    )

    assert breach is not None
    assert breach.channel_notice(case_label="FM-12") == (
        "⚠️ FM-12 reached its model budget of $2.00 ($2.50 spent) and goes on without the model."
    )
