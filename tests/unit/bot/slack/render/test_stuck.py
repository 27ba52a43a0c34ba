"""A stuck case drawn: once with its ways out as buttons, then one line; the handover to forward;
the summary's line; and no live way out once the case moves again or is finished."""

from __future__ import annotations

import json
from typing import Any

from bot.slack.ids import StuckValue, load_value
from bot.slack.render.case.header import summary_message
from bot.slack.render.case.reply import reply_message
from bot.slack.render.case.stuck import STILL_STUCK, handover_message
from bot.slack.render.limits import problems
from bot.thread.compose import stuck_ended
from domain.engine.present import escalation_view
from domain.lifecycle.special_states import WayOut
from domain.lifecycle.status import CaseStatus
from domain.lifecycle.turn_tracking import record_turn, snapshot
from tests.unit.bot.slack.render.views import stuck_reply, summary
from tests.unit.domain.builders import investigating_case, later

CASE_ID = "case_000000000001"


def stuck_buttons(rendered_blocks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        element
        for block in rendered_blocks
        if block["type"] == "actions"
        for element in block["elements"]
        if element["action_id"].startswith("fm_stuck")
    ]


def test_the_ways_out_are_four_buttons_each_naming_its_way() -> None:
    rendered = reply_message(stuck_reply(), case_id=CASE_ID)

    found = stuck_buttons(rendered.block_dicts())
    ways = [load_value(StuckValue, b["value"]).way for b in found]
    assert ways == [WayOut.BEST_GUESS, WayOut.ESCALATE, WayOut.NEW_CATEGORY, WayOut.CLOSE]
    assert {load_value(StuckValue, b["value"]).case_id for b in found} == {CASE_ID}
    assert problems(rendered) == []


def test_said_before_it_is_one_line_without_buttons() -> None:
    reply = stuck_reply()
    assert reply.escalation is not None
    later_reply = reply.model_copy(
        update={"escalation": reply.escalation.model_copy(update={"said": True})}
    )

    text = json.dumps(reply_message(later_reply, case_id=CASE_ID).block_dicts(), ensure_ascii=False)

    assert STILL_STUCK in text
    assert "We're stuck" not in text
    assert "fm_stuck" not in text


def test_once_its_ways_out_no_longer_apply_it_keeps_who_chose_what_and_no_buttons() -> None:
    reply = stuck_reply()
    assert reply.escalation is not None
    closed = reply.escalation.model_copy(update={"open": False, "chosen": "{@U1} chose: Escalate"})

    blocks = reply_message(reply.model_copy(update={"escalation": closed}), case_id=CASE_ID)

    assert stuck_buttons(blocks.block_dicts()) == []
    assert "<@U1> chose: Escalate" in json.dumps(blocks.block_dicts())


def test_the_handover_is_one_message_to_forward_with_what_to_share_escaped() -> None:
    case = investigating_case()
    case.problem_verification.symptom_statement = "500s <!channel>"  # type: ignore[union-attr]
    for minute in range(3):
        record_turn(case, snapshot(case), now=later(minute))
    view = escalation_view(case)
    assert view is not None

    rendered = handover_message(view, by="U1", case_label="FM-7K3Q")
    text = json.dumps(rendered.block_dicts(), ensure_ascii=False)

    assert "<@U1> is escalating FM-7K3Q" in text
    assert "Stuck: No progress for 3 turns." in text
    assert "Problem: 500s &lt;!channel&gt;" in text, "no one is pinged by a problem statement"
    assert problems(rendered) == []


def test_the_summary_says_why_it_is_stuck_even_with_a_question_waiting() -> None:
    view = summary(stuck=True, stuck_note="No progress for 3 turns.", waiting_questions=1)

    text = json.dumps(summary_message(view).block_dicts(), ensure_ascii=False)

    assert "Stuck:* No progress for 3 turns. The ways out are in the thread." in text


def test_the_stuck_message_is_redrawn_once_the_case_moves_again_or_ends() -> None:
    before = investigating_case()
    for minute in range(3):
        record_turn(before, snapshot(before), now=later(minute))
    still = before.model_copy(deep=True)
    moving = before.model_copy(deep=True)
    moving.degraded_mode.exited_at = later(9)  # type: ignore[union-attr]
    closed = before.model_copy(deep=True)
    closed.status = CaseStatus.CLOSED

    assert stuck_ended(before, still) == []
    assert stuck_ended(before, moving) == [escalation_view(before).key]  # type: ignore[union-attr]
    assert stuck_ended(before, closed) == [escalation_view(before).key]  # type: ignore[union-attr]
