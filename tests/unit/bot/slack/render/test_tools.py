"""A tool run's card: the exact call with ▶ Run it and Skip while it waits, then how it went."""

from __future__ import annotations

from typing import Any

from bot.slack.ids import ToolRunValue, load_value
from bot.slack.render.case.tools import tool_card
from bot.slack.render.message import message
from domain.engine.view import ToolRunCard
from domain.tools import ToolOutcome
from domain.tools.runs import ToolRunStatus
from tests.fakes.slack.block_kit_validation import check_message
from tests.unit.bot.slack.render.snapshots import assert_snapshot

WAITING = ToolRunCard(
    run_id="tool_1a2b",
    number=2,
    server="prometheus",
    tool="execute_range_query",
    arguments='{"end": "1764254100", "query": "rate(x[5m])", "start": "1764252300"}',
    reason="The 502 rate around 14:05 shows when it began.",
    status=ToolRunStatus.PENDING,
)


def as_slack(card: ToolRunCard) -> dict[str, Any]:
    rendered = message(tool_card(card, case_id="case_1"), text="tool")
    payload: dict[str, Any] = {
        "text": rendered.text,
        "blocks": [b.to_dict() for b in rendered.blocks],
    }
    assert check_message(payload["text"], payload["blocks"]) is None
    return payload


def test_a_waiting_run_shows_the_exact_call_and_run_it_and_skip() -> None:
    payload = as_slack(WAITING)

    assert_snapshot("tool_run_waiting", payload)
    buttons = [e for b in payload["blocks"] if b["type"] == "actions" for e in b["elements"]]
    assert [b["action_id"] for b in buttons] == ["fm_run_tool:tool_1a2b", "fm_skip_tool:tool_1a2b"]
    assert load_value(ToolRunValue, buttons[0]["value"]).run_id == "tool_1a2b"


def test_a_run_that_ran_says_who_consented_and_what_to_cite_without_buttons() -> None:
    done = WAITING.model_copy(
        update={
            "status": ToolRunStatus.RAN,
            "consented_by": "U123",
            "outcome": ToolOutcome.OK,
            "sentence": "prometheus execute_range_query answered.",
            "citation": "prometheus:execute_range_query#2 (14:05–14:35Z)",
        }
    )

    payload = as_slack(done)

    assert_snapshot("tool_run_ran", payload)
    assert all(b["type"] != "actions" for b in payload["blocks"])
    assert "Ran (<@U123>)" in str(payload["blocks"])
