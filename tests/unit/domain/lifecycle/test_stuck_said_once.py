"""A stuck case is said once (the turn that found it), then in a line; a responder's way out is
recorded, and the views say so: the reply's, the summary's, a redraw's."""

from __future__ import annotations

import pytest

from domain.case import Case
from domain.engine.present import ReplyParts, build_reply, escalation_view, seen, stuck_now
from domain.engine.prompting.prompts import PromptContext, prompt_kind_for, render_prompt
from domain.engine.summary import summary_view
from domain.engine.view import EscalationView, ReplyKind
from domain.errors import NotAllowedToAnswerError, PreconditionFailedError, TerminalCaseError
from domain.lifecycle.degraded import choose_way_out, mark_said
from domain.lifecycle.responders import ResponderSet, ResponderSource
from domain.lifecycle.special_states import DegradedModeType, EscalationType, WayOut
from domain.lifecycle.status import CaseStatus
from domain.lifecycle.turn_tracking import record_turn, snapshot
from tests.fakes.clock import FakeClock
from tests.unit.domain.builders import NOW, OPENER, investigating_case, later

ON_CALL = "U_ONCALL"


def stuck_case() -> Case:
    """An investigation three turns without progress: each turn recorded as the engine does."""
    case = investigating_case()
    for minute in range(3):
        record_turn(case, snapshot(case), now=later(minute))
    assert case.degraded_mode is not None
    assert case.degraded_mode.is_active
    return case


def turn_reply_escalation(case: Case, minute: int) -> EscalationView | None:
    """A turn's answer, recorded at ``minute``: what it says of being stuck."""
    before = seen(case)
    record_turn(case, snapshot(case), now=later(minute))
    return build_reply(case, before, ReplyParts(kind=ReplyKind.ANSWER, text="…")).escalation


def test_the_turn_that_finds_the_case_stuck_says_it_and_later_turns_refer_to_it() -> None:
    case = investigating_case()
    for minute in range(2):
        record_turn(case, snapshot(case), now=later(minute))
    assert case.degraded_mode is None

    first = turn_reply_escalation(case, 2)
    second = turn_reply_escalation(case, 3)

    assert first is not None
    assert not first.said, "the turn that found it says it, with the ways out"
    assert first.options == list(WayOut)
    assert first.open
    assert second is not None
    assert second.said, "a later turn refers to it in a line"
    assert case.degraded_mode is not None
    assert case.degraded_mode.said_at == later(2)


def test_only_a_turns_answer_says_it_not_a_clicks_note_or_a_failure() -> None:
    case = stuck_case()
    case.degraded_mode.said_at = None  # type: ignore[union-attr]
    before = seen(case)

    for kind in (ReplyKind.DECISION, ReplyKind.FAULT):
        reply = build_reply(case, before, ReplyParts(kind=kind, text="…"))
        assert reply.escalation is None


def test_being_stuck_again_later_is_said_again() -> None:
    case = stuck_case()
    assert mark_said(case, now=NOW) is False, "the turn that found it said it already"
    case.degraded_mode.exited_at = later(20)  # type: ignore[union-attr]

    assert mark_said(case, now=later(21)) is False, "not stuck: nothing to say"
    assert escalation_view(case) is None


def test_a_responders_way_out_is_recorded_and_escalating_hands_the_case_over() -> None:
    case = stuck_case()

    chosen = choose_way_out(case, WayOut.ESCALATE, by=OPENER, now=later(30))

    assert chosen.chosen is WayOut.ESCALATE
    assert chosen.chosen_by == OPENER
    assert chosen.chosen_at == later(30)
    assert case.escalation_state is not None
    assert case.escalation_state.escalation_type is EscalationType.NO_PROGRESS
    assert case.escalation_state.reason == "No progress for 3 turns."
    summary = summary_view(case)
    assert summary.stuck
    assert summary.stuck_note == "No progress for 3 turns. {@U_OPENER} chose: Escalate."


def test_only_responders_choose_and_only_while_stuck_and_running() -> None:
    case = stuck_case()
    on_call = ResponderSet(members=frozenset({ON_CALL}), source=ResponderSource.CONFIRMERS)

    with pytest.raises(NotAllowedToAnswerError):
        choose_way_out(case, WayOut.BEST_GUESS, by="U_STRANGER", now=NOW)
    with pytest.raises(NotAllowedToAnswerError):
        choose_way_out(case, WayOut.BEST_GUESS, by=OPENER, now=NOW, responders=on_call)
    choose_way_out(case, WayOut.BEST_GUESS, by=ON_CALL, now=NOW, responders=on_call)

    case.degraded_mode.exited_at = later(5)  # type: ignore[union-attr]
    with pytest.raises(PreconditionFailedError):
        choose_way_out(case, WayOut.CLOSE, by=OPENER, now=later(6))
    case.status = CaseStatus.CLOSED
    with pytest.raises(TerminalCaseError):
        choose_way_out(case, WayOut.CLOSE, by=OPENER, now=later(7))


def test_a_redraw_keeps_the_buttons_only_while_the_case_is_still_stuck_and_running() -> None:
    case = stuck_case()
    view = escalation_view(case)
    assert view is not None
    assert view.key

    choose_way_out(case, WayOut.NEW_CATEGORY, by=OPENER, now=later(5))
    chosen = stuck_now(case, view)
    assert chosen.open
    assert chosen.chosen == "{@U_OPENER} chose: Try another kind of explanation"

    case.status = CaseStatus.CLOSED
    assert not stuck_now(case, view).open, "a finished case keeps no live way out"
    case.status = CaseStatus.INVESTIGATING
    case.degraded_mode.exited_at = later(6)  # type: ignore[union-attr]
    assert not stuck_now(case, view).open, "moving again: the ways out no longer apply"
    assert summary_view(case).stuck_note is None


def test_a_reply_kept_before_the_ways_out_were_buttons_still_reads() -> None:
    kept = {
        "mode": DegradedModeType.NO_PROGRESS.value,
        "reason": "No progress for 3 turns.",
        "recommended": False,
        "options": [
            "Proceed with the best guess (lower confidence)",
            "Escalate to someone with more access or expertise",
            "Close the case",
            "Try a different kind of explanation",
        ],
    }

    view = EscalationView.model_validate(kept)

    assert view.options == [WayOut.BEST_GUESS, WayOut.ESCALATE, WayOut.CLOSE, WayOut.NEW_CATEGORY]
    assert not view.key


def test_the_model_is_told_the_ways_out_are_buttons_and_which_one_was_chosen() -> None:
    case = stuck_case()
    choose_way_out(case, WayOut.BEST_GUESS, by=OPENER, now=later(5))

    prompt = (
        render_prompt(prompt_kind_for(case), PromptContext(case=case), clock=FakeClock())
        .messages[0]
        .content
    )

    assert "Do not list fallbacks" in prompt, "the thread shows them once, as buttons"
    assert "Offer fallbacks plainly" not in prompt
    assert "Way out the people chose: Proceed with the best guess" in prompt
