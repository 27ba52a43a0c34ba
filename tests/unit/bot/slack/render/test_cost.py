"""What the model cost, where people look: the summary's footer, `/fm status`, the App Home;
and what the bot says when it holds back (a flap, a wait, a budget)."""

from __future__ import annotations

import json
from datetime import UTC, datetime

from bot.slack.render.case.header import summary_message
from bot.slack.render.commands import CaseLink, case_line, case_status
from bot.slack.render.holding_back import (
    budget_note,
    budget_notice,
    self_resolved_note,
    waiting_note,
)
from bot.slack.render.views import HomeModel, home_view
from domain.budget import BudgetLimits, LLMSpend, breached
from domain.case import Case
from domain.workflows.signals import Signal, SignalGroup, SignalStatus
from tests.unit.bot.slack.render.snapshots import assert_snapshot
from tests.unit.bot.slack.render.test_render import CASE_ID, snapshot
from tests.unit.bot.slack.render.views import summary

SPEND = LLMSpend(calls=3, tokens=4200, cost_usd=0.0123)
NOON = datetime(2026, 11, 21, 12, 0, tzinfo=UTC)


def case() -> Case:
    found = Case(
        team_id="T1",
        channel_id="C1",
        thread_ts="1.1",
        user_id="U1",
        title="db-1 down",
        case_id=CASE_ID,
        created_at=NOON,
        updated_at=NOON,
    )
    found.short_id = "FM-ABCD"
    return found


def footer(blocks: list[dict[str, object]]) -> list[str]:
    shown = [json.dumps(b, ensure_ascii=False) for b in blocks if b["type"] == "context"]
    return [text for text in shown if "🪙" in text]


def test_the_summary_s_footer_says_what_the_model_cost_once_it_was_used() -> None:
    rendered = summary_message(summary(), SPEND)

    [line] = footer(rendered.block_dicts())
    assert "3 model calls · 4.2k tokens · $0.0123" in line
    assert rendered.block_dicts()[-1]["type"] == "actions"  # the buttons stay last
    snapshot("header_with_spend", rendered)
    assert footer(summary_message(summary(), LLMSpend()).block_dicts()) == []
    assert footer(summary_message(summary()).block_dicts()) == []


def test_status_says_what_the_case_cost_in_a_sentence() -> None:
    rendered = case_status(CaseLink(case(), "https://x.slack.com/archives/C1/p11", SPEND))

    assert "Model use: 3 model calls · 4.2k tokens · $0.0123." in json.dumps(
        rendered.block_dicts(), ensure_ascii=False
    )
    snapshot("status_with_spend", rendered)
    unused = case_status(CaseLink(case(), None, LLMSpend()))
    assert "Model use: No model calls." in json.dumps(unused.block_dicts())


def test_lists_show_a_case_s_cost_only_when_the_model_was_used() -> None:
    line = case_line(CaseLink(case(), None, SPEND))

    assert line.endswith("· 🪙 3 model calls · 4.2k tokens · $0.0123")
    assert "🪙" not in case_line(CaseLink(case(), None, LLMSpend()))
    assert "🪙" not in case_line(CaseLink(case(), None))


def test_the_home_shows_each_case_s_cost_and_today_s() -> None:
    today = LLMSpend(calls=40, tokens=120_000, cost_usd=None, unpriced_calls=40)
    view = home_view(
        HomeModel(
            cases=[CaseLink(case(), "https://x.slack.com/archives/C1/p11", SPEND)],
            scores=[],
            knowledge_chunks=10,
            spend_today=today,
        )
    )

    shown = json.dumps(view.to_dict(), ensure_ascii=False)
    assert "Model use in this workspace today: 40 model calls · 120.0k tokens;" in shown
    assert_snapshot("home_with_spend", view.to_dict())


def test_what_the_bot_says_when_it_holds_back() -> None:
    group = SignalGroup(
        status=SignalStatus.RESOLVED,
        alerts=[
            Signal(status=SignalStatus.RESOLVED, labels={"alertname": "Flapping"}, fingerprint="f1")
        ],
    )
    breach = breached(BudgetLimits(day_usd=5), case=None, day=LLMSpend(cost_usd=6.2), now=NOON)
    assert breach is not None

    snapshot("self_resolved_note", self_resolved_note(group, after_s=42.4))
    snapshot("waiting_note", waiting_note(position=2, limit=4))
    snapshot("budget_note", budget_note(breach))
    snapshot("budget_notice", budget_notice(breach, case_label=None))
    alone = waiting_note(position=1, limit=1)
    assert alone.text.startswith("⏳ At most 1 alert investigation runs")
